// Package temporaltest runs the Temporal CLI's dev server (`temporal server
// start-dev --headless`, in memory) on free local ports for the tests and
// benchmarks of the Temporal engine.
//
// The binary is $HARNESS_TEMPORAL; scripts/test.sh builds
// github.com/temporalio/cli/cmd/temporal once into a cache folder and sets
// it (and HARNESS_TEST_TEMPORAL=required, which turns a missing binary from
// a skip into a failure).
package temporaltest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/harness-agent/harness/internal/testkit"
)

// Server starts a dev server and returns its address (HOST:PORT); it is
// stopped when the test ends. Without a Temporal CLI it skips, saying why.
func Server(tb testing.TB) string {
	tb.Helper()
	return Start(tb).Addr
}

// Dev is a running dev server.
type Dev struct {
	Addr string // HOST:PORT of its frontend
	PID  int    // its process
}

// CPU is the processor time the server has used so far (user and system),
// read from /proc; 0 where there is none.
func (d *Dev) CPU() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", d.PID))
	if err != nil {
		return 0
	}
	// The fields after the command name (in parentheses): utime and stime
	// are the 12th and 13th, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// Start starts a dev server, stopped when the test ends. Without a
// Temporal CLI it skips, saying why.
func Start(tb testing.TB) *Dev {
	tb.Helper()
	bin := os.Getenv("HARNESS_TEMPORAL")
	required := os.Getenv("HARNESS_TEST_TEMPORAL") == "required"
	if bin == "" && required {
		tb.Fatal("HARNESS_TEST_TEMPORAL=required but HARNESS_TEMPORAL is not set (scripts/test.sh sets both)")
	}
	if bin == "" {
		tb.Skip("HARNESS_TEMPORAL is not set: it names the Temporal CLI (go install github.com/temporalio/cli/cmd/temporal@v1.5.1) these tests start a dev server with")
	}
	if _, err := os.Stat(bin); err != nil {
		if required {
			tb.Fatalf("HARNESS_TEMPORAL=%s: %v", bin, err)
		}
		tb.Skipf("HARNESS_TEMPORAL=%s: %v", bin, err)
	}
	// The ports are free when picked, but another process may bind one
	// before the server does: then it exits at once and is started again
	// on other ports.
	for attempt := 1; ; attempt++ {
		dev, err := launch(tb, bin)
		if err == nil {
			return dev
		}
		var died *exitedError
		if attempt < 3 && errors.As(err, &died) && strings.Contains(died.out, "address already in use") {
			tb.Logf("temporal dev server: a port it was given was taken meanwhile; starting it again on others")
			continue
		}
		tb.Fatal(err)
	}
}

// exitedError is a dev server that exited before it was ready.
type exitedError struct {
	err error
	out string
}

func (e *exitedError) Error() string {
	return fmt.Sprintf("temporal dev server exited: %v\n%s", e.err, e.out)
}

// launch starts a dev server on free ports, stopped when the test ends, and
// waits until it is ready.
func launch(tb testing.TB, bin string) (*Dev, error) {
	tb.Helper()
	port, ui, httpPort, metrics := freePort(tb), freePort(tb), freePort(tb), freePort(tb)
	cmd := exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", fmt.Sprint(port), "--ui-port", fmt.Sprint(ui),
		"--http-port", fmt.Sprint(httpPort), "--metrics-port", fmt.Sprint(metrics), "--db-filename", "", "--log-level", "error")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var exit, err error
	died := false
	ready := testkit.Eventually(2*time.Minute, func() bool {
		select {
		case exit = <-exited:
			died = true
			exited <- exit // for the cleanup
			return true
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var cl client.Client
		if cl, err = client.DialContext(ctx, client.Options{HostPort: addr, Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))}); err == nil {
			_, err = cl.CheckHealth(ctx, &client.CheckHealthRequest{})
			cl.Close()
		}
		return err == nil
	})
	switch {
	case died:
		return nil, &exitedError{err: exit, out: out.String()}
	case !ready:
		return nil, fmt.Errorf("temporal dev server at %s not ready: %v\n%s", addr, err, out.String())
	}
	return &Dev{Addr: addr, PID: cmd.Process.Pid}, nil
}

// freePort picks a port nothing listens on now (a variable for the test
// of a port taken meanwhile).
var freePort = func(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
