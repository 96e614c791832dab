package script

import (
	"fmt"
	"unicode/utf8"

	"github.com/harness-agent/harness/sdk"
)

// bytesPerToken is the estimate used for usage: 4 bytes ≈ 1 token.
const bytesPerToken = 4

func tokens(bytes int) int64 { return int64((bytes + bytesPerToken - 1) / bytesPerToken) }

// estimate returns the usage of a turn answering a prompt of promptBytes
// bytes of which the first cachedBytes equal the previous request's:
// those are cache hits. The turn's usage block overrides any field.
func estimate(t *turn, thinking bool, promptBytes, cachedBytes int) sdk.Usage {
	reasoning := 0
	if thinking {
		reasoning = len(t.reasoning)
	}
	out := reasoning + len(t.text)
	for _, c := range t.toolCalls {
		out += len(c.name) + len(c.arguments)
	}
	u := sdk.Usage{
		PromptTokens:     tokens(promptBytes),
		CacheHitTokens:   int64(cachedBytes / bytesPerToken),
		CompletionTokens: tokens(out),
		ReasoningTokens:  tokens(reasoning),
	}
	u.CacheMissTokens = u.PromptTokens - u.CacheHitTokens
	o := t.usage
	for _, f := range []struct {
		dst *int64
		src *int64
	}{{&u.PromptTokens, o.prompt}, {&u.CompletionTokens, o.completion}, {&u.CacheHitTokens, o.cacheHit}, {&u.CacheMissTokens, o.cacheMiss}, {&u.ReasoningTokens, o.reasoning}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	return u
}

// render turns a turn into the chunks a model would stream: the reasoning
// block (in thinking mode), the text block, then one block per tool call,
// each cut into deltas of at most chunkSize bytes (never inside a UTF-8
// character), and a finish with the usage.
func render(t *turn, thinking bool, position, chunkSize int, usage sdk.Usage) []sdk.StreamChunk {
	var out []sdk.StreamChunk
	index := 0
	block := func(start sdk.StreamChunk, body string) {
		start.Type, start.Index = sdk.ChunkBlockStart, index
		out = append(out, start)
		for _, piece := range split(body, chunkSize) {
			out = append(out, sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: index, Text: piece})
		}
		out = append(out, sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: index})
		index++
	}
	if thinking && t.reasoning != "" {
		block(sdk.StreamChunk{Kind: sdk.BlockReasoning}, t.reasoning)
	}
	if t.text != "" {
		block(sdk.StreamChunk{Kind: sdk.BlockText}, t.text)
	}
	for i, c := range t.toolCalls {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", position+1, i+1)
		}
		block(sdk.StreamChunk{Kind: sdk.BlockToolCall, ToolCallID: id, ToolName: c.name}, c.arguments)
	}
	reason := t.finishReason
	if reason == "" {
		reason = "stop"
		if len(t.toolCalls) > 0 {
			reason = "tool_calls"
		}
	}
	return append(out, sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: reason, Usage: &usage})
}

// split cuts s into pieces of at most size bytes, each ending on a character
// boundary (a character longer than size is a piece of its own).
func split(s string, size int) []string {
	var pieces []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		pieces = append(pieces, s[:n])
		s = s[n:]
	}
	return pieces
}
