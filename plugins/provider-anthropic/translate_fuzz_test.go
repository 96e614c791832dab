package anthropic

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

// FuzzTranslate feeds arbitrary event payloads (one per line of the
// input, the event named by its "type" as the API does) to the translator
// and checks that whatever it emits obeys the StreamChunk protocol:
// blocks start once, at rising indexes, with an id and a name for tool
// calls; deltas and ends only for open blocks, deltas never empty; a
// finish comes last with every block closed, exactly when message_stop
// was handled without error; every error has a kind.
func FuzzTranslate(f *testing.F) {
	for _, seed := range []string{
		`{"type":"message_start","message":{"id":"m","usage":{"input_tokens":3}}}` + "\n" + `{"type":"message_stop"}`,
		`{"type":"message_start","message":{"id":"m"}}` + "\n" + `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"a":1}}}` + "\n" + `{"type":"content_block_stop","index":0}` + "\n" + `{"type":"message_stop"}`,
		`{"type":"message_start","message":{"id":"m"}}` + "\n" + `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"x"}}` + "\n" + `{"type":"message_stop"}`,
		`{"type":"message_start","message":{"id":"m"}}` + "\n" + `{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"s","name":"web"}}` + "\n" + `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}` + "\n" + `{"type":"message_stop"}`,
		`{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"explanation":"no"}}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`{"type":"ping"}`,
		`null`,
		`[1]`,
	} {
		f.Add([]byte(seed))
	}
	dir := filepath.Join(fakeanthropic.FixturesDir(f), "anthropic")
	files, _ := filepath.Glob(filepath.Join(dir, "*.chunks.jsonl"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var chunks []sdk.StreamChunk
		tr := newTranslator(func(c sdk.StreamChunk) error { chunks = append(chunks, c); return nil })
		var err error
		done := false
		for _, line := range bytes.Split(input, []byte("\n")) {
			var head struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(line, &head)
			if done, err = tr.event(head.Type, line); err != nil || done {
				break
			}
		}
		checkProtocol(t, chunks, done && err == nil, err)
	})
}

func checkProtocol(t *testing.T, chunks []sdk.StreamChunk, wantFinish bool, err error) {
	t.Helper()
	open := map[int]bool{}
	started := map[int]bool{}
	last := -1
	finished := false
	for i, c := range chunks {
		if finished {
			t.Fatalf("chunk %d after finish", i)
		}
		switch c.Type {
		case sdk.ChunkBlockStart:
			if started[c.Index] || c.Index <= last {
				t.Fatalf("block %d started after block %d (or twice)", c.Index, last)
			}
			if c.Kind == sdk.BlockToolCall && (c.ToolCallID == "" || c.ToolName == "") {
				t.Fatalf("tool block without id or name: %+v", c)
			}
			open[c.Index], started[c.Index], last = true, true, c.Index
		case sdk.ChunkBlockDelta:
			if !open[c.Index] || (c.Text == "" && c.Signature == "") {
				t.Fatalf("delta for block %d (open %v): %+v", c.Index, open[c.Index], c)
			}
		case sdk.ChunkBlockEnd:
			if !open[c.Index] {
				t.Fatalf("end of block %d that is not open", c.Index)
			}
			delete(open, c.Index)
		case sdk.ChunkFinish:
			if len(open) > 0 || c.Reason == "" || c.Usage == nil {
				t.Fatalf("finish %+v with open blocks %v", c, open)
			}
			finished = true
		default:
			t.Fatalf("unexpected chunk %+v", c)
		}
	}
	if finished != wantFinish {
		t.Fatalf("finished %v, want %v (error %v)", finished, wantFinish, err)
	}
	if err != nil && sdk.KindOf(err) == sdk.KindInternal {
		t.Fatalf("an untyped error: %v", err)
	}
}
