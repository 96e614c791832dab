package deepseek

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// requests is a random sequence of requests edited the ways a session
// edits its conversation, each encoded by one bodyCache and, as the
// oracle, whole.
type requests struct {
	t     *testing.T
	r     *rand.Rand
	req   sdk.StreamRequest
	cache bodyCache
}

func (q *requests) text() string { return sdktest.RandomText(q.r) }

func (q *requests) message() sdk.Message { return sdktest.RandomMessage(q.r) }

// step edits the request once and checks its body.
func (q *requests) step() {
	q.t.Helper()
	msgs := q.req.Messages
	switch op := q.r.IntN(21); {
	case op < 9: // the turn's new messages
		for range 1 + q.r.IntN(3) {
			msgs = append(msgs, q.message())
		}
	case op < 11 && len(msgs) > 0: // an earlier message changes, in place or replaced
		i := q.r.IntN(len(msgs))
		switch q.r.IntN(3) {
		case 0:
			msgs[i].Content += "x"
		case 1:
			if len(msgs[i].ToolCalls) > 0 {
				msgs[i].ToolCalls[0].Arguments = q.text() // the caller's slice, mutated
			} else {
				msgs[i].Reasoning = q.text()
			}
		default:
			msgs[i] = q.message()
		}
	case op < 13 && len(msgs) > 2: // compaction: the head, a summary, the newest
		head := q.r.IntN(3)
		keep := q.r.IntN(len(msgs) - head)
		out := append([]sdk.Message(nil), msgs[:head]...)
		out = append(out, sdk.Message{Role: sdk.RoleUser, Content: "[Summary] " + q.text()})
		msgs = append(out, msgs[len(msgs)-keep:]...)
	case op < 14 && len(msgs) > 0:
		msgs = msgs[:q.r.IntN(len(msgs))]
	case op < 16: // the model, and so the thinking mode, or the replay flag
		models := []string{"deepseek-chat", "deepseek-reasoner", "deepseek-v4-flash", "other<&>\"model\"", ""}
		q.req.Model.ID = models[q.r.IntN(len(models))]
		q.req.Thinking, q.req.ReplayReasoning = q.r.IntN(2) == 0, q.r.IntN(2) == 0
	case op < 18: // the tools and the options
		params := []string{"", `{"type":"object"}`, `{ "type" : "object", "x": "<&>" }`}
		q.req.Tools = append(q.req.Tools[:q.r.IntN(len(q.req.Tools)+1)], sdk.ToolDefinition{Name: q.text(), Description: q.text(),
			Parameters: json.RawMessage(params[q.r.IntN(len(params))])})
		q.req.ToolChoice = []string{"", "auto", "none", "required", "read_file"}[q.r.IntN(5)]
		q.req.MaxOutput, q.req.Temperature = int64(q.r.IntN(3)*1000), float64(q.r.IntN(3))/2
	case op < 19 && len(q.req.Tools) > 0: // the caller's tool definitions, mutated in place
		t := &q.req.Tools[q.r.IntN(len(q.req.Tools))]
		if len(t.Parameters) > 0 && q.r.IntN(2) == 0 {
			t.Parameters[len(t.Parameters)-1] = ' '
		} else {
			t.Description += "x"
		}
	default:
		q.req.Tools = nil
	}
	q.req.Messages = msgs
	want, wantErr := json.Marshal(buildRequest(q.req))
	got, err := q.cache.encode(q.req)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
		q.t.Fatalf("body\n%s (%v)\nwant\n%s (%v)", got, err, want, wantErr)
	}
}

// TestBodyCacheMatchesWhole: over random sequences of requests (messages
// appended, edited in place, replaced, compacted, truncated; the model,
// thinking, replay, tools and options changing), the cached body is
// byte for byte the body encoded whole.
func TestBodyCacheMatchesWhole(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		q := &requests{t: t, r: rand.New(rand.NewPCG(seed, 22))}
		for range 60 {
			q.step()
		}
	}
}

// FuzzBodyCache drives the random edits from the fuzzer's seed.
func FuzzBodyCache(f *testing.F) {
	f.Add(uint64(1), uint8(40))
	f.Add(uint64(9), uint8(200))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint8) {
		q := &requests{t: t, r: rand.New(rand.NewPCG(seed, seed>>7))}
		for range int(steps) {
			q.step()
		}
	})
}

// BenchmarkRequestBody measures the body of turn 100 of a session (200
// messages): encoded whole, and by the cache holding turn 99's.
func BenchmarkRequestBody(b *testing.B) {
	msgs := []sdk.Message{{Role: sdk.RoleSystem, Content: "You are a helpful agent."}, {Role: sdk.RoleUser, Content: "Summarize the notes", Pinned: true}}
	for k := range 99 {
		id := fmt.Sprintf("call_%d", k)
		msgs = append(msgs, sdk.Message{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"notes-%d.md"}`, k)}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: id, Content: "     1\t# Notes\n     2\t\n     3\t- TODO: the parser\n     4\t- TODO: the docs\n"})
	}
	req := sdk.StreamRequest{Model: sdk.ModelInfo{ID: "deepseek-chat"}, Messages: msgs, Tools: []sdk.ToolDefinition{{Name: "read_file",
		Description: "Reads a file of the workspace.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(buildRequest(req)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		var c bodyCache
		b.ReportAllocs()
		for b.Loop() {
			c.msgs, c.encs = c.msgs[:min(len(c.msgs), len(msgs)-2)], c.encs[:min(len(c.encs), len(msgs)-2)] // turn 100's two messages are new
			if _, err := c.encode(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
