package deepseek_test

import (
	"context"
	"encoding/json"
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

// fixtureTextBytes is the length of the answer's text in the long fixture.
func fixtureTextBytes(b *testing.B) int {
	raw, err := os.ReadFile(fixture(b, longFixture))
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			b.Fatal(err)
		}
		for _, ch := range c.Choices {
			n += len(ch.Delta.Content)
		}
	}
	return n
}

// BenchmarkStreamPerChunk replays the long recorded stream through the
// whole path: fake server, HTTP, SSE, chunk translation, gRPC to the host
// client. ns/chunk is per SSE data event.
func BenchmarkStreamPerChunk(b *testing.B) {
	events := dataEvents(b)
	wantText := fixtureTextBytes(b)
	srv := fakedeepseek.New(b)
	srv.Repeat(fakedeepseek.Fixture(b, fixture(b, longFixture)))
	p := connect(b, sdktest.ConnectProvider(b, deepseek.New()), srv, "deepseek-chat", nil)
	req := userRequest("a holiday")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := deepseek.ProcessCPU()
	for range b.N {
		// The SDK may merge deltas queued behind the one it sends: count
		// the text and the other chunks (start, end, finish).
		others, text := 0, 0
		err := p.client.Stream(ctx, p.handle, req, func(c sdk.StreamChunk) error {
			if c.Type == sdk.ChunkError {
				b.Fatalf("stream error: %v", c.Err)
			}
			if c.Type == sdk.ChunkBlockDelta {
				text += len(c.Text)
			} else {
				others++
			}
			return nil
		})
		if err != nil || others != 3 || text != wantText {
			b.Fatalf("%d chunks besides deltas, %d bytes of text (want 3, %d), err %v", others, text, wantText, err)
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
