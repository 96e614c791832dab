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
// decoded by decodeChunk (fastChunk takes them) against the full decoder
// alone, which took them before fastChunk did.
func BenchmarkDecodeChunk(b *testing.B) {
	usual := `{"id":"f6117a0b","object":"chat.completion.chunk","created":1764657993,"model":"deepseek-chat","system_fingerprint":"fp_e","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`
	for _, tc := range []struct{ name, payload string }{
		{"text", sprintf(usual, `{"content":"##"}`, `null`)},
		{"tool-call-delta", sprintf(usual, `{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\": \"notes-1.md\"}"}}]}`, `null`)},
		{"finish-with-usage", sprintf(usual[:len(usual)-len(`"usage":null}`)], `{"content":"","reasoning_content":null}`, `"tool_calls"`) +
			`"usage":{"prompt_tokens":339,"completion_tokens":83,"total_tokens":422,"prompt_tokens_details":{"cached_tokens":320},"completion_tokens_details":{"reasoning_tokens":39},"prompt_cache_hit_tokens":320,"prompt_cache_miss_tokens":19}}`},
	} {
		payload := []byte(tc.payload)
		if !fastChunk(payload, new(wireChunk)) {
			b.Fatalf("%s: fastChunk refuses it", tc.name)
		}
		b.Run(tc.name+"/decodeChunk", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var c wireChunk
				if err := decodeChunk(payload, &c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/full-decoder", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var c wireChunk
				if err := jsonv2.Unmarshal(payload, &c, v1compat); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
