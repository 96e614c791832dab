package deepseek_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// longFixture has 401 data events (400 text deltas and the finish chunk).
const longFixture = "vercel-deepseek-chat-text-length.2025-12.chunks.jsonl"

func dataEvents(b *testing.B) int {
	raw, err := os.ReadFile(fixture(b, longFixture))
	if err != nil {
		b.Fatal(err)
	}
	return len(strings.Split(strings.TrimSpace(string(raw)), "\n"))
}

// BenchmarkStreamPerChunk replays the long recorded stream through the
// whole path: fake server, HTTP, SSE, chunk translation, gRPC to the host
// client. ns/chunk is per SSE data event.
func BenchmarkStreamPerChunk(b *testing.B) {
	events := dataEvents(b)
	srv := fakedeepseek.New(b)
	srv.Repeat(fakedeepseek.Fixture(b, fixture(b, longFixture)))
	p := connect(b, sdktest.ConnectProvider(b, deepseek.New()), srv, "deepseek-chat", nil)
	req := userRequest("a holiday")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := deepseek.ProcessCPU()
	for range b.N {
		n := 0
		err := p.client.Stream(ctx, p.handle, req, func(c sdk.StreamChunk) error {
			if c.Type == sdk.ChunkError {
				b.Fatalf("stream error: %v", c.Err)
			}
			n++
			return nil
		})
		if err != nil || n != 400+3 { // start, 400 deltas, end, finish
			b.Fatalf("%d chunks, err %v", n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/chunk")
	b.ReportMetric(float64((deepseek.ProcessCPU()-cpu).Nanoseconds())/float64(b.N*events), "cpu-ns/chunk")
}

// BenchmarkHTTPOnly is the transport alone: the same body read from the
// fake over HTTP and discarded. The difference to BenchmarkStreamPerChunk
// is what parsing, translating and gRPC cost.
func BenchmarkHTTPOnly(b *testing.B) {
	events := dataEvents(b)
	srv := fakedeepseek.New(b)
	srv.Repeat(fakedeepseek.Fixture(b, fixture(b, longFixture)))
	client := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := deepseek.ProcessCPU()
	for range b.N {
		resp, err := client.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"deepseek-chat","messages":[]}`))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/chunk")
	b.ReportMetric(float64((deepseek.ProcessCPU()-cpu).Nanoseconds())/float64(b.N*events), "cpu-ns/chunk")
	client.CloseIdleConnections()
}
