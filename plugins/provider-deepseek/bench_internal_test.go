package deepseek

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/harness-agent/harness/plugins/internal/sse"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// BenchmarkDecodePerChunk is the bare comparison for
// BenchmarkStreamPerChunk: the same body parsed and translated in memory,
// without HTTP or gRPC.
func BenchmarkDecodePerChunk(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(fakedeepseek.FixturesDir(b), "deepseek", "vercel-deepseek-chat-text-length.2025-12.chunks.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var body bytes.Buffer
	for _, l := range lines {
		body.WriteString("data: " + l + "\n\n")
	}
	body.WriteString("data: [DONE]\n\n")
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := ProcessCPU()
	for range b.N {
		tr := newTranslator(func(sdk.StreamChunk) error { return nil })
		p := sse.NewParser(bytes.NewReader(body.Bytes()), sse.Options{})
		for {
			ev, err := p.Next()
			if errors.Is(err, io.EOF) {
				b.Fatal("no [DONE]")
			}
			if err != nil {
				b.Fatal(err)
			}
			if isDone(ev.Data) {
				if err := tr.done(); err != nil {
					b.Fatal(err)
				}
				break
			}
			if err := tr.data([]byte(ev.Data)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/chunk")
	b.ReportMetric(float64((ProcessCPU()-cpu).Nanoseconds())/float64(b.N*len(lines)), "cpu-ns/chunk")
}

// BenchmarkDecodeChunk is one chunk of each of DeepSeek's usual shapes
// (TestFastChunk's cases) decoded by decodeChunk, which fastChunk takes,
// against the full decoder alone, which took them before fastChunk did.
func BenchmarkDecodeChunk(b *testing.B) {
	shapes := map[string]string{"text delta": "text", "tool call arguments": "tool-call-delta", "finish with usage": "finish-with-usage"}
	found := 0
	for _, tc := range fastChunkCases() {
		name, ok := shapes[tc.name]
		if !ok {
			continue
		}
		if found++; !tc.accept {
			b.Fatalf("%s: fastChunk does not take it", tc.name)
		}
		payload := []byte(tc.payload)
		b.Run(name+"/decodeChunk", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var c wireChunk
				if err := decodeChunk(payload, &c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/full-decoder", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var c wireChunk
				if err := jsonv2.Unmarshal(payload, &c, v1compat); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	if found != len(shapes) {
		b.Fatalf("%d of TestFastChunk's cases named in shapes, want %d", found, len(shapes))
	}
}
