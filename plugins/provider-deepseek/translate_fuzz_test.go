package deepseek

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// FuzzDecodeChunk feeds arbitrary data payloads (one per line of the
// input) to the chunk translator and checks that whatever it emits obeys
// the StreamChunk protocol: blocks open with consecutive indexes, deltas
// and ends only for open blocks, a tool block always has an id and a name,
// and a finish comes last with every block closed, or not at all.
func FuzzDecodeChunk(f *testing.F) {
	for _, seed := range []string{
		`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_content":"r"}}]}` + "\n" + `{"choices":[{"index":0,"delta":{"content":"t"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3}}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"a","function":{"name":"n","arguments":"{"}}]}}]}` + "\n" + `{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}}]},"finish_reason":"tool_calls"}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"x"}}]}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":1,"prompt_tokens_details":{"cached_tokens":2}}}`,
		`{"error":{"message":"m","type":"t","code":1}}`,
		`{"error":"plain"}`,
		`null`,
		`[1,2]`,
	} {
		f.Add([]byte(seed))
	}
	dir := filepath.Join(fakedeepseek.FixturesDir(f), "deepseek")
	for _, name := range []string{
		"vercel-deepseek-v4flash-reasoning-then-toolcall-cachehit.2026-08.chunks.jsonl",
		"vercel-deepseek-v4flash-thinking-length-live.chunks.jsonl",
	} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var chunks []sdk.StreamChunk
		tr := newTranslator(func(c sdk.StreamChunk) error { chunks = append(chunks, c); return nil })
		var err error
		for _, line := range bytes.Split(input, []byte("\n")) {
			if err = tr.data(line); err != nil {
				break
			}
		}
		if err == nil {
			err = tr.done()
		}
		checkProtocol(t, chunks, err)
	})
}

func checkProtocol(t *testing.T, chunks []sdk.StreamChunk, err error) {
	t.Helper()
	open := map[int]bool{}
	started := 0
	finished := false
	for i, c := range chunks {
		if finished {
			t.Fatalf("chunk %d after finish", i)
		}
		switch c.Type {
		case sdk.ChunkBlockStart:
			if c.Index != started {
				t.Fatalf("block %d started, want %d", c.Index, started)
			}
			if c.Kind == sdk.BlockToolCall && (c.ToolCallID == "" || c.ToolName == "") {
				t.Fatalf("tool block without id or name: %+v", c)
			}
			open[c.Index] = true
			started++
		case sdk.ChunkBlockDelta:
			if !open[c.Index] || c.Text == "" {
				t.Fatalf("delta for block %d (open %v) text %q", c.Index, open[c.Index], c.Text)
			}
		case sdk.ChunkBlockEnd:
			if !open[c.Index] {
				t.Fatalf("end of block %d that is not open", c.Index)
			}
			delete(open, c.Index)
		case sdk.ChunkFinish:
			if len(open) > 0 || c.Reason == "" {
				t.Fatalf("finish %q with open blocks %v", c.Reason, open)
			}
			finished = true
		default:
			t.Fatalf("unexpected chunk %+v", c)
		}
	}
	if finished == (err != nil) {
		t.Fatalf("finished %v with error %v", finished, err)
	}
	if err != nil {
		if kind := sdk.KindOf(err); kind == sdk.KindInternal {
			t.Fatalf("an untyped error: %v", err)
		}
	}
}

// FuzzDecodeMatchesEncodingJSON: decodeChunk accepts what encoding/json
// accepts and decodes it to the same chunk.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"n","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"prompt_cache_hit_tokens":1,"completion_tokens_details":{"reasoning_tokens":2}}}`,
		`{"error":{"message":"m"}}`, `{"Choices":[{"Index":0,"DELTA":{"Content":"x"}}]}`, `{"choices":null,"usage":null}`,
		`{"choices":[{"delta":{"content":"a"},"delta":{"reasoning_content":"b"}}]}`, "{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
		`{"choices":[{"index":1.5}]}`, `[]`, `null`, `{"choices":[{"index":"0"}]}`,
		`{"choices":[{"index":0,"delta":{"content":"\ud83d\ude00 \u00e9\n\"\\\/\b\f\r\t"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"\ud83d"}}]}`, `{"choices":[{"index":0,"delta":{"content":"\udc00\ud83d"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":null}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"n","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":null,"function":null},{}]}}],"usage":{"prompt_tokens":null,"total_tokens":1.5}}`,
		`{"usage":{"prompt_tokens":-0,"completion_tokens":123456789012345678,"prompt_tokens_details":{"cached_tokens":null},"completion_tokens_details":{}}}`,
	} {
		f.Add([]byte(seed))
	}
	// One recorded payload per shape: the fuzzing engine gathers coverage
	// for each seed before it mutates any (about 10 ms each), and the 1041
	// recorded payloads have 36 shapes, the same keys with other values.
	// TestFastChunkTakesRecordedTextChunks checks every one of them.
	shapes := map[string]bool{}
	for _, chunk := range fixtureChunks(f) {
		shape := string(numberValue.ReplaceAll(stringValue.ReplaceAll(chunk, []byte(`:""`)), []byte(`:0`)))
		if !shapes[shape] {
			shapes[shape] = true
			f.Add(chunk)
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var want, got, fast wireChunk
		errWant := json.Unmarshal(payload, &want)
		errGot := decodeChunk(payload, &got)
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("%q: encoding/json says %v, decodeChunk %v", payload, errWant, errGot)
		}
		if errWant == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("%q: encoding/json decodes %+v, decodeChunk %+v", payload, want, got)
		}
		if fastChunk(payload, &fast) {
			if errWant != nil {
				t.Fatalf("%q: fastChunk accepts what encoding/json rejects (%v)", payload, errWant)
			}
			if !reflect.DeepEqual(want, fast) {
				t.Fatalf("%q: encoding/json decodes %+v, fastChunk %+v", payload, want, fast)
			}
		}
	})
}

// stringValue and numberValue find the string and number values of an
// object's keys, so that chunks that differ only in them have one shape.
var (
	stringValue = regexp.MustCompile(`:\s*"(?:[^"\\]|\\.)*"`)
	numberValue = regexp.MustCompile(`:\s*-?[0-9][0-9.eE+-]*`)
)

// fixtureChunks is every data payload of every recorded DeepSeek fixture:
// each line of a *.chunks.jsonl, each data: line of a *.sse.
func fixtureChunks(tb testing.TB) [][]byte {
	tb.Helper()
	dir := filepath.Join(fakedeepseek.FixturesDir(tb), "deepseek")
	var files []string
	for _, pattern := range []string{"*.chunks.jsonl", "*.sse", "synthetic/*.sse"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	var chunks [][]byte
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range bytes.Split(raw, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if strings.HasSuffix(name, ".sse") {
				var ok bool
				if line, ok = bytes.CutPrefix(line, []byte("data:")); !ok {
					continue
				}
				line = bytes.TrimPrefix(line, []byte(" "))
			}
			if len(line) > 0 {
				chunks = append(chunks, line)
			}
		}
	}
	if len(chunks) == 0 {
		tb.Fatalf("no data payloads in %s", dir)
	}
	return chunks
}
