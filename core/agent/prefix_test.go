package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// promptBytes is the prompt serialized whole, as it was before
// promptCache: the oracle the cache must match byte for byte.
func promptBytes(msgs []sdk.Message, defs []sdk.ToolDefinition) []byte {
	type message struct {
		Role       sdk.Role       `json:"role"`
		Content    string         `json:"content,omitempty"`
		Reasoning  string         `json:"reasoning,omitempty"`
		ToolCalls  []sdk.ToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	body := struct {
		Tools    []tool    `json:"tools"`
		Messages []message `json:"messages"`
	}{}
	for _, d := range defs {
		body.Tools = append(body.Tools, tool{d.Name, d.Description, d.Parameters})
	}
	for _, m := range msgs {
		body.Messages = append(body.Messages, message{m.Role, m.Content, m.Reasoning, m.ToolCalls, m.ToolCallID})
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil
	}
	return b
}

// conversation is a random conversation edited the ways a session edits
// one, driving promptCache and the oracle side by side.
type conversation struct {
	t    *testing.T
	r    *rand.Rand
	msgs []sdk.Message
	defs []sdk.ToolDefinition

	est      estimator
	prev     prompt // the cache's last request
	prevWant []byte // the oracle's
}

func (c *conversation) text() string { return sdktest.RandomText(c.r) }

func (c *conversation) message() sdk.Message { return sdktest.RandomMessage(c.r) }

func (c *conversation) def() sdk.ToolDefinition {
	params := []string{"", `{"type":"object"}`, `{ "type" : "object", "x": "<&>" }`, `{"type":`}
	return sdk.ToolDefinition{Name: c.text(), Description: c.text(), Parameters: json.RawMessage(params[c.r.IntN(len(params))])}
}

// step edits the conversation once, then checks a request (or a
// compactor's estimate).
func (c *conversation) step() {
	switch op := c.r.IntN(20); {
	case op < 8: // the turn's new messages
		for range 1 + c.r.IntN(3) {
			c.msgs = append(c.msgs, c.message())
		}
	case op < 10 && len(c.msgs) > 0: // an earlier message changes, in place or replaced
		i := c.r.IntN(len(c.msgs))
		switch c.r.IntN(4) {
		case 0:
			c.msgs[i].Content += "x"
		case 1:
			if len(c.msgs[i].ToolCalls) > 0 {
				c.msgs[i].ToolCalls[0].Arguments = c.text() // the caller's slice, mutated
			} else {
				c.msgs[i].Reasoning = c.text()
			}
		case 2:
			c.msgs[i].Pinned = !c.msgs[i].Pinned // not serialized
		default:
			c.msgs[i] = c.message()
		}
	case op < 12 && len(c.msgs) > 2: // compaction: the head, a summary, the newest
		head := c.r.IntN(3)
		keep := c.r.IntN(len(c.msgs) - head)
		out := append([]sdk.Message(nil), c.msgs[:head]...)
		out = append(out, sdk.Message{Role: sdk.RoleUser, Content: "[Summary] " + c.text()})
		c.msgs = append(out, c.msgs[len(c.msgs)-keep:]...)
	case op < 13 && len(c.msgs) > 0: // truncated
		c.msgs = c.msgs[:c.r.IntN(len(c.msgs))]
	case op < 15: // the tools change
		switch c.r.IntN(4) {
		case 0:
			c.defs = nil
		case 1:
			c.defs = append(c.defs, c.def())
		case 2:
			if len(c.defs) > 0 {
				c.defs[c.r.IntN(len(c.defs))].Parameters = json.RawMessage(`{"type":"object","required":["path"]}`)
			}
		default:
			c.defs = append([]sdk.ToolDefinition(nil), c.defs...)
			if len(c.defs) > 0 {
				c.defs[0] = c.def()
			}
		}
	case op < 17: // the compactor's estimate, without tools, between requests
		want := promptBytes(c.msgs, nil)
		if got := c.est.prompt(c.msgs, nil).size(); got != len(want) {
			c.t.Fatalf("estimate of %d messages: %d bytes, want %d", len(c.msgs), got, len(want))
		}
		return
	}
	c.request()
}

func (c *conversation) request() {
	c.t.Helper()
	want := promptBytes(c.msgs, c.defs)
	got := c.est.prompt(c.msgs, c.defs)
	if n := got.size(); n != len(want) {
		c.t.Fatalf("%d messages, %d tools: %d bytes, want %d", len(c.msgs), len(c.defs), n, len(want))
	}
	if b := got.bytes(); !bytes.Equal(b, want) {
		c.t.Fatalf("prompt\n%s\nwant\n%s", b, want)
	}
	if n, w := c.prev.sharedPrefix(got), sharedPrefix(c.prevWant, want); n != w {
		c.t.Fatalf("shared prefix %d, want %d\nprevious %s\nnow      %s", n, w, c.prevWant, want)
	}
	c.prev, c.prevWant = got, want
}

// TestPromptCacheMatchesOracle: over random conversations, with messages
// appended, edited in place, replaced, compacted and truncated, tools
// changing (invalid parameters among them) and compactor estimates in
// between, the cache's size, bytes and shared prefix are the oracle's.
func TestPromptCacheMatchesOracle(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		c := &conversation{t: t, r: rand.New(rand.NewPCG(seed, 22)), est: newEstimator()}
		for range 60 {
			c.step()
		}
	}
}

// TestPromptCacheSession: a session's requests (system, task, then a
// tool call and its result per turn) share everything but the closing
// brackets with the previous request, as the whole serialization does.
func TestPromptCacheSession(t *testing.T) {
	t.Parallel()
	c := &conversation{t: t, r: rand.New(rand.NewPCG(1, 2)), est: newEstimator(),
		defs: []sdk.ToolDefinition{{Name: "read_file", Description: "Reads a file.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		msgs: []sdk.Message{{Role: sdk.RoleSystem, Content: "You are helpful."}, {Role: sdk.RoleUser, Content: "Summarize the notes"}}}
	for k := range 20 {
		c.request()
		if k > 0 {
			if n := c.prev.size(); c.prevWant == nil || n != len(c.prevWant) {
				t.Fatalf("turn %d: size %d", k, n)
			}
		}
		id := fmt.Sprintf("call_%d", k)
		c.msgs = append(c.msgs, sdk.Message{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"notes.md"}`}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: id, Content: "# Notes"})
	}
}

// FuzzPromptCache drives the random edits from the fuzzer's seed.
func FuzzPromptCache(f *testing.F) {
	f.Add(uint64(1), uint8(40))
	f.Add(uint64(7), uint8(200))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint8) {
		c := &conversation{t: t, r: rand.New(rand.NewPCG(seed, seed>>7)), est: newEstimator()}
		for range int(steps) {
			c.step()
		}
	})
}

// BenchmarkPrompt measures a request's prompt at turn 100 of a session
// (200 messages): serialized whole, and by the cache holding turn 99's.
func BenchmarkPrompt(b *testing.B) {
	defs := []sdk.ToolDefinition{{Name: "read_file", Description: "Reads a file of the workspace.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	msgs := []sdk.Message{{Role: sdk.RoleSystem, Content: "You are a helpful agent."}, {Role: sdk.RoleUser, Content: "Summarize the notes"}}
	turn := func(k int) {
		id := fmt.Sprintf("call_%d", k)
		msgs = append(msgs, sdk.Message{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"notes-%d.md"}`, k)}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: id, Content: "     1\t# Notes\n     2\t\n     3\t- TODO: the parser\n     4\t- TODO: the docs\n"})
	}
	for k := range 99 {
		turn(k)
	}
	b.Run("whole", func(b *testing.B) {
		prev := promptBytes(msgs[:len(msgs)-2], defs)
		for b.Loop() {
			p := promptBytes(msgs, defs)
			_ = sharedPrefix(prev, p)
		}
	})
	b.Run("cached", func(b *testing.B) {
		e := newEstimator()
		prev := e.prompt(msgs[:len(msgs)-2], defs)
		for b.Loop() {
			e.cache.msgs, e.cache.encs = e.cache.msgs[:len(msgs)-2], e.cache.encs[:len(msgs)-2] // turn 100's two messages are new
			p := e.prompt(msgs, defs)
			_ = prev.sharedPrefix(p)
			_ = p.size()
		}
	})
}
