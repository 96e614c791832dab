package agent

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/harness-agent/harness/sdk"
)

// The prompt of a request, for estimates and the llm.request event, is a
// canonical serialization of what it sends: the tools, then the messages
// in order, as json.Marshal writes
//
//	{"tools":[{"name":…,"description":…,"parameters":…},…],"messages":[{"role":…,"content":…,…},…]}
//
// ("tools":null without tools, "messages":null without messages).
// Providers build their own bodies, but they keep this order, so the bytes
// a request shares with the previous one track what the provider's prefix
// cache can hit. A prompt is never built whole: promptCache keeps each
// message's encoding while the message is unchanged, so a turn encodes
// only the messages it added.

// promptMessage and promptTool are the serialized fields.
type promptMessage struct {
	Role       sdk.Role       `json:"role"`
	Content    string         `json:"content,omitempty"`
	Reasoning  string         `json:"reasoning,omitempty"`
	ToolCalls  []sdk.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type promptTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

var (
	noToolsHead = []byte(`{"tools":null,"messages":`)
	nullTail    = []byte(`null}`)
)

// prompt is a serialized prompt in pieces: head ({"tools":…,"messages":)
// and the messages' encodings. ok is false when the tools cannot be
// serialized; the prompt then counts as empty.
type prompt struct {
	head []byte
	msgs [][]byte
	ok   bool
}

// size is the prompt's length in bytes.
func (p prompt) size() int {
	if !p.ok {
		return 0
	}
	if len(p.msgs) == 0 {
		return len(p.head) + len(nullTail)
	}
	n := len(p.head) + 1 + len(p.msgs) + 1 // [ , … ] }
	for _, m := range p.msgs {
		n += len(m)
	}
	return n
}

// tail appends to dst the prompt's bytes from its i-th message on (with
// the comma before it) to its end, or at least limit of them.
func (p prompt) tail(dst []byte, i, limit int) []byte {
	start := len(dst)
	for ; i < len(p.msgs); i++ {
		if len(dst)-start >= limit {
			return dst
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, p.msgs[i]...)
	}
	return append(dst, ']', '}')
}

// bytes is the whole prompt.
func (p prompt) bytes() []byte {
	if !p.ok {
		return nil
	}
	b := append([]byte(nil), p.head...)
	if len(p.msgs) == 0 {
		return append(b, nullTail...)
	}
	return p.tail(append(b, '['), 0, int(^uint(0)>>1))
}

// sharedPrefix counts the leading bytes a and b have in common, skipping
// whole the messages whose encodings both hold.
func (a prompt) sharedPrefix(b prompt) int {
	if !a.ok || !b.ok {
		return 0
	}
	if len(a.msgs) == 0 || len(b.msgs) == 0 || !bytes.Equal(a.head, b.head) {
		return sharedPrefix(a.bytes(), b.bytes())
	}
	n := len(a.head) + 1 // the head and [
	i := 0
	for i < len(a.msgs) && i < len(b.msgs) && sameBytes(a.msgs[i], b.msgs[i]) {
		if i > 0 {
			n++ // the comma
		}
		n += len(a.msgs[i])
		i++
	}
	ta := a.tail(nil, i, int(^uint(0)>>1))
	tb := b.tail(nil, i, len(ta))
	return n + sharedPrefix(ta, tb)
}

func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}

// promptCache serializes prompts, reusing the encodings of the messages
// and tools of the previous call that are unchanged (messages are compared
// by position: a conversation mostly grows at its end).
type promptCache struct {
	msgs []sdk.Message // the messages encs encode, their slices copied
	encs [][]byte

	defs    []sdk.ToolDefinition // the tools head serializes
	head    []byte
	toolsOK bool
}

// prompt serializes msgs and defs. Its messages' encodings are shared
// with the cache: they are never modified, only replaced.
func (c *promptCache) prompt(msgs []sdk.Message, defs []sdk.ToolDefinition) prompt {
	p := prompt{head: noToolsHead, ok: true}
	if len(defs) > 0 {
		p.head, p.ok = c.tools(defs)
	}
	if len(c.msgs) > len(msgs) {
		c.msgs, c.encs = c.msgs[:len(msgs)], c.encs[:len(msgs)]
	}
	for i := range msgs {
		if i < len(c.msgs) && sdk.SameMessage(c.msgs[i], msgs[i]) {
			continue
		}
		m := msgs[i]
		enc, err := json.Marshal(promptMessage{m.Role, m.Content, m.Reasoning, m.ToolCalls, m.ToolCallID})
		if err != nil { // not for strings: kept for the day a field is not one
			c.msgs, c.encs = c.msgs[:min(i, len(c.msgs))], c.encs[:min(i, len(c.encs))]
			return prompt{}
		}
		m.ToolCalls, m.ReasoningBlocks = slices.Clone(m.ToolCalls), slices.Clone(m.ReasoningBlocks)
		if i < len(c.msgs) {
			c.msgs[i], c.encs[i] = m, enc
		} else {
			c.msgs, c.encs = append(c.msgs, m), append(c.encs, enc)
		}
	}
	p.msgs = append([][]byte(nil), c.encs...)
	return p
}

// tools returns the head serializing defs, re-encoded only when they
// changed.
func (c *promptCache) tools(defs []sdk.ToolDefinition) ([]byte, bool) {
	if c.head != nil && sameDefs(c.defs, defs) {
		return c.head, c.toolsOK
	}
	ts := make([]promptTool, len(defs))
	for i, d := range defs {
		ts[i] = promptTool{d.Name, d.Description, d.Parameters}
	}
	enc, err := json.Marshal(ts)
	c.defs = make([]sdk.ToolDefinition, len(defs))
	for i, d := range defs {
		d.Parameters = append(json.RawMessage(nil), d.Parameters...)
		c.defs[i] = d
	}
	c.head = append(append([]byte(`{"tools":`), enc...), `,"messages":`...)
	c.toolsOK = err == nil
	return c.head, c.toolsOK
}

func sameDefs(a, b []sdk.ToolDefinition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}

// sharedPrefix counts the leading bytes a and b have in common.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// estimator turns prompts into tokens, calibrated by the prompt tokens
// the provider reports. It keeps the encodings of the messages it last
// measured.
type estimator struct {
	bytesPerToken float64
	cache         promptCache
}

func newEstimator() estimator { return estimator{bytesPerToken: 4} }

func (e *estimator) tokens(bytes int) int64 {
	return int64(float64(bytes)/e.bytesPerToken + 0.5)
}

// prompt serializes a prompt (see promptCache).
func (e *estimator) prompt(msgs []sdk.Message, defs []sdk.ToolDefinition) prompt {
	return e.cache.prompt(msgs, defs)
}

// calibrate learns from a request of promptBytes that the provider counted
// as reported tokens.
func (e *estimator) calibrate(promptBytes int, reported int64) {
	if reported <= 0 || promptBytes <= 0 {
		return
	}
	observed := float64(promptBytes) / float64(reported)
	// Move halfway: one odd request does not swing the estimate.
	e.bytesPerToken = (e.bytesPerToken + observed) / 2
}
