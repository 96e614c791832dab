package fakeanthropic

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"github.com/harness-agent/harness/sdk/sdktest/internal/ssefake"
)

// Turn is a scripted model answer: thinking, then text, then tool calls,
// streamed the way the Messages API streams them.
type Turn struct {
	Thinking string
	// Signature of the thinking block; default Sign(Thinking), which the
	// fake accepts when the block comes back.
	Signature string
	Text      string
	ToolCalls []ToolCall
	// Stop is the stop_reason; default "tool_use" when there are tool
	// calls, else "end_turn".
	Stop string
	// Usage replaces the estimated usage when set.
	Usage *Usage
	// Fragment is how many characters each delta carries; default 4.
	Fragment int
}

// ToolCall is one scripted tool_use block. An empty ID gets one in the
// API's form ("toolu_…").
type ToolCall struct {
	ID    string
	Name  string
	Input string // JSON; empty streams no input_json_delta bytes at all
}

// Usage is the usage a scripted turn reports.
type Usage struct {
	InputTokens              int64 // uncached input
	CacheReadInputTokens     int64
	CacheCreationInputTokens int64
	OutputTokens             int64
}

// Sign is the signature the fake gives a thinking text.
func Sign(thinking string) string {
	sum := sha256.Sum256([]byte("fakeanthropic:" + thinking))
	return "Eq" + base64.StdEncoding.EncodeToString(sum[:]) + "=="
}

type wireUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// frames builds the events of the turn for request number seq.
func (t *Turn) frames(seq int, model string, u Usage, noStop bool) [][]byte {
	b := &turnBuilder{}
	size := t.Fragment
	if size <= 0 {
		size = 4
	}
	if t.Usage != nil {
		u = *t.Usage
	}
	b.add("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake%04d", seq), "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": wireUsage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens, OutputTokens: 1},
	}})
	b.add("ping", map[string]any{"type": "ping"})
	index := 0
	completion := 0
	if t.Thinking != "" {
		sig := t.Signature
		if sig == "" {
			sig = Sign(t.Thinking)
		}
		b.start(index, map[string]any{"type": "thinking", "thinking": "", "signature": ""})
		for _, part := range ssefake.Fragments(t.Thinking, size) {
			b.delta(index, map[string]any{"type": "thinking_delta", "thinking": part})
		}
		b.delta(index, map[string]any{"type": "signature_delta", "signature": sig})
		b.stop(index)
		index++
		completion += len(t.Thinking)
	}
	if t.Text != "" {
		b.start(index, map[string]any{"type": "text", "text": ""})
		for _, part := range ssefake.Fragments(t.Text, size) {
			b.delta(index, map[string]any{"type": "text_delta", "text": part})
		}
		b.stop(index)
		index++
		completion += len(t.Text)
	}
	for i, tc := range t.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake%04d%02d", seq, i)
		}
		b.start(index, map[string]any{"type": "tool_use", "id": id, "name": tc.Name, "input": map[string]any{}})
		b.delta(index, map[string]any{"type": "input_json_delta", "partial_json": ""})
		for _, part := range ssefake.Fragments(tc.Input, size*4) {
			b.delta(index, map[string]any{"type": "input_json_delta", "partial_json": part})
		}
		b.stop(index)
		index++
		completion += len(tc.Name) + len(tc.Input)
	}
	stop := t.Stop
	if stop == "" {
		stop = "end_turn"
		if len(t.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	out := u.OutputTokens
	if t.Usage == nil {
		out = max(1, estimateTokens(completion))
	}
	b.add("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": wireUsage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens, OutputTokens: out}})
	if !noStop {
		b.add("message_stop", map[string]any{"type": "message_stop"})
	}
	return b.frames
}

type turnBuilder struct{ frames [][]byte }

func (b *turnBuilder) add(typ string, v any) {
	b.frames = append(b.frames, frame(typ, ssefake.Marshal(v)))
}

func (b *turnBuilder) start(i int, block any) {
	b.add("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": block})
}

func (b *turnBuilder) delta(i int, d any) {
	b.add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
}

func (b *turnBuilder) stop(i int) {
	b.add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}
