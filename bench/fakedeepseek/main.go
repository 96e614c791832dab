// Command fakedeepseek serves the fake DeepSeek server of
// sdk/sdktest/fakedeepseek as a standalone process, answering with its
// ReadSession script, which any OpenAI-compatible agent can run: TURNS-1
// calls of the file-reading tool the request offers (harness's read_file,
// Crush's view), then an answer. It is for running an agent by hand
// against the same server BenchmarkSession uses:
//
//	fakedeepseek [-addr 127.0.0.1:0] [-turns 2] [-file notes.md]
//
// It prints its base URL on the first line of standard output and serves
// until standard input closes or it gets SIGINT or SIGTERM; then it
// prints how many requests it answered to standard error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	turns := flag.Int("turns", 2, "model turns per session: TURNS-1 reads, then an answer")
	file := flag.String("file", "notes.md", "the file each read names (a %d in it is the read's number, from 1)")
	flag.Parse()
	if *turns < 1 {
		fmt.Fprintln(os.Stderr, "fakedeepseek: -turns must be at least 1")
		os.Exit(2)
	}
	srv, err := fakedeepseek.Start(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv.Script(fakedeepseek.ReadSession(*turns, *file))
	fmt.Println(srv.URL)

	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); done <- struct{}{} }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() { <-sig; done <- struct{}{} }()
	<-done
	srv.Close()
	fmt.Fprintf(os.Stderr, "fakedeepseek: %d requests answered\n", len(srv.Requests()))
}
