package deepseek

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/sdk"
)

// wireChunk is one SSE data payload of a streamed chat completion.
type wireChunk struct {
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Content          *string             `json:"content"`
	ReasoningContent *string             `json:"reasoning_content"`
	ToolCalls        []wireToolCallDelta `json:"tool_calls"`
}

type wireToolCallDelta struct {
	Index    *int              `json:"index"`
	ID       *string           `json:"id"`
	Function wireFunctionDelta `json:"function"`
}

type wireFunctionDelta struct {
	Name      *string `json:"name"`
	Arguments *string `json:"arguments"`
}

type wireUsage struct {
	PromptTokens            int64                  `json:"prompt_tokens"`
	CompletionTokens        int64                  `json:"completion_tokens"`
	PromptCacheHitTokens    *int64                 `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens   *int64                 `json:"prompt_cache_miss_tokens"`
	PromptTokensDetails     *wirePromptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *wireCompletionDetails `json:"completion_tokens_details"`
}

type wirePromptDetails struct {
	CachedTokens *int64 `json:"cached_tokens"`
}

type wireCompletionDetails struct {
	ReasoningTokens *int64 `json:"reasoning_tokens"`
}

// toUsage converts wire usage. Cache hits come from DeepSeek's
// prompt_cache_hit_tokens, else OpenAI's prompt_tokens_details.cached_tokens;
// misses from prompt_cache_miss_tokens, else prompt minus hits.
func (u *wireUsage) toUsage() *sdk.Usage {
	out := &sdk.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	switch {
	case u.PromptCacheHitTokens != nil:
		out.CacheHitTokens = *u.PromptCacheHitTokens
	case u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil:
		out.CacheHitTokens = *u.PromptTokensDetails.CachedTokens
	}
	if u.PromptCacheMissTokens != nil {
		out.CacheMissTokens = *u.PromptCacheMissTokens
	} else if miss := out.PromptTokens - out.CacheHitTokens; miss > 0 {
		out.CacheMissTokens = miss
	}
	if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
		out.ReasoningTokens = *d.ReasoningTokens
	}
	return out
}

// toolCall is the state of one tool call, keyed by its wire index.
type toolCall struct {
	wireIndex int
	id, name  string
	pending   []byte // argument fragments that arrived before the name
	argBytes  int    // argument bytes emitted
	block     int
	opened    bool
	closed    bool
}

// translator turns decoded chunks into StreamChunks. Block indexes count
// from 0 in the order blocks open. At most one text or reasoning block is
// open at a time; tool-call blocks stay open together (their deltas may
// interleave) until another kind starts or the stream ends.
type translator struct {
	emit func(sdk.StreamChunk) error

	nextBlock int
	cur       *textBlock
	calls     map[int]*toolCall
	lastCall  *toolCall
	openCalls []*toolCall

	finish string
	usage  *sdk.Usage
	events int
}

type textBlock struct {
	index int
	kind  sdk.BlockKind
}

func newTranslator(emit func(sdk.StreamChunk) error) *translator {
	return &translator{emit: emit, calls: map[int]*toolCall{}}
}

// data handles one data payload that is neither [DONE] nor empty.
func (t *translator) data(payload []byte) error {
	t.events++
	var c wireChunk
	if err := decodeChunk(payload, &c); err != nil {
		return sdk.Errorf(sdk.KindStreamViolation, "deepseek: data event %d is not a JSON chunk (%v): %s", t.events, err, providerkit.Excerpt(payload))
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return t.apiError(c.Error)
	}
	if c.Usage != nil {
		t.usage = c.Usage.toUsage()
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // n is never above 1 in our requests
		}
		if err := t.delta(&ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" && t.finish == "" {
			t.finish = *ch.FinishReason
		}
	}
	return nil
}

func (t *translator) delta(d *wireDelta) error {
	hasContent := d.ReasoningContent != nil && *d.ReasoningContent != "" ||
		d.Content != nil && *d.Content != "" || len(d.ToolCalls) > 0
	if hasContent && t.finish != "" {
		return sdk.Errorf(sdk.KindStreamViolation, "deepseek: data event %d carries content after finish_reason %q", t.events, t.finish)
	}
	if d.ReasoningContent != nil && *d.ReasoningContent != "" {
		if err := t.text(sdk.BlockReasoning, *d.ReasoningContent); err != nil {
			return err
		}
	}
	if d.Content != nil && *d.Content != "" {
		if err := t.text(sdk.BlockText, *d.Content); err != nil {
			return err
		}
	}
	for i := range d.ToolCalls {
		if err := t.toolDelta(&d.ToolCalls[i]); err != nil {
			return err
		}
	}
	return nil
}

func (t *translator) text(kind sdk.BlockKind, s string) error {
	if t.cur == nil || t.cur.kind != kind {
		if err := t.closeAll(); err != nil {
			return err
		}
		t.cur = &textBlock{index: t.nextBlock, kind: kind}
		t.nextBlock++
		if err := t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: t.cur.index, Kind: kind}); err != nil {
			return err
		}
	}
	return t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: t.cur.index, Text: s})
}

// toolDelta merges one tool-call delta by index. The first delta normally
// carries id and name; a later null or empty value never overwrites one.
// A delta without an index continues the last call, or starts a new one
// when it brings an id not seen before.
func (t *translator) toolDelta(d *wireToolCallDelta) error {
	id, name, args := deref(d.ID), deref(d.Function.Name), deref(d.Function.Arguments)
	idx, ok := 0, d.Index != nil
	if ok {
		idx = *d.Index
	} else if t.lastCall != nil && (id == "" || id == t.lastCall.id) {
		idx = t.lastCall.wireIndex
	} else {
		idx = t.maxWireIndex() + 1
	}
	call := t.calls[idx]
	if call == nil {
		call = &toolCall{wireIndex: idx}
		t.calls[idx] = call
	}
	t.lastCall = call
	if call.closed {
		return sdk.Errorf(sdk.KindStreamViolation, "deepseek: data event %d continues tool call %d after its block ended", t.events, idx)
	}
	if call.id == "" {
		call.id = id
	}
	if call.name == "" {
		call.name = name
	}
	if !call.opened {
		if call.name == "" {
			call.pending = append(call.pending, args...)
			return nil
		}
		if err := t.openCall(call); err != nil {
			return err
		}
		args = string(call.pending) + args
		call.pending = nil
	}
	if args == "" {
		return nil
	}
	call.argBytes += len(args)
	return t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: call.block, Text: args})
}

// openCall starts the block of a tool call; a text or reasoning block in
// progress ends first.
func (t *translator) openCall(call *toolCall) error {
	if err := t.closeText(); err != nil {
		return err
	}
	if call.id == "" {
		call.id = "call_" + strconv.Itoa(call.wireIndex)
	}
	call.block, call.opened = t.nextBlock, true
	t.nextBlock++
	t.openCalls = append(t.openCalls, call)
	return t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: call.block, Kind: sdk.BlockToolCall, ToolCallID: call.id, ToolName: call.name})
}

func (t *translator) maxWireIndex() int {
	maxIdx := -1
	for idx := range t.calls {
		maxIdx = max(maxIdx, idx)
	}
	return maxIdx
}

func (t *translator) closeText() error {
	if t.cur == nil {
		return nil
	}
	idx := t.cur.index
	t.cur = nil
	return t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: idx})
}

// closeAll ends every open block in the order they opened.
func (t *translator) closeAll() error {
	type open struct {
		index int
		call  *toolCall
	}
	var blocks []open
	if t.cur != nil {
		blocks = append(blocks, open{index: t.cur.index})
		t.cur = nil
	}
	for _, c := range t.openCalls {
		blocks = append(blocks, open{index: c.block, call: c})
	}
	t.openCalls = nil
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].index < blocks[j].index })
	for _, b := range blocks {
		if b.call != nil {
			b.call.closed = true
			if b.call.argBytes == 0 {
				// Servers stream a call without parameters as no argument
				// bytes at all; the call's arguments are the empty object.
				if err := t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: b.index, Text: "{}"}); err != nil {
					return err
				}
			}
		}
		if err := t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: b.index}); err != nil {
			return err
		}
	}
	return nil
}

// done ends the stream normally: at [DONE], or at EOF after a
// finish_reason when require_done is off.
func (t *translator) done() error {
	if t.finish == "" {
		return sdk.Errorf(sdk.KindTruncated, "deepseek: the stream ended (after %d data events) without a finish_reason", t.events)
	}
	for _, c := range t.calls {
		if !c.opened {
			return sdk.Errorf(sdk.KindStreamViolation, "deepseek: tool call %d never received a function name", c.wireIndex)
		}
	}
	if t.finish == "insufficient_system_resource" {
		// DeepSeek cut the generation short for lack of capacity.
		return sdk.Errorf(sdk.KindProviderUnavailable, "deepseek: the server stopped the answer early (finish_reason %q)", t.finish)
	}
	if err := t.closeAll(); err != nil {
		return err
	}
	return t.emit(sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: t.finish, Usage: t.usage})
}

// apiError turns an error object sent inside a 200 stream into a terminal
// error.
func (t *translator) apiError(raw json.RawMessage) error {
	e, ok := parseAPIError(raw)
	if !ok {
		e = apiError{Message: string(raw)}
	}
	return sdk.Errorf(kindForAPIError(e), "deepseek: the server sent an error inside the stream after %d data events: %s", t.events-1, e)
}

// errorEvent handles an SSE event of type "error", whatever its data.
func (t *translator) errorEvent(data string) error {
	t.events++
	var envelope struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(data), &envelope) == nil && len(envelope.Error) > 0 && string(envelope.Error) != "null" {
		return t.apiError(envelope.Error)
	}
	if _, ok := parseAPIError(json.RawMessage(data)); ok {
		return t.apiError(json.RawMessage(data))
	}
	return sdk.Errorf(sdk.KindProviderUnavailable, "deepseek: the server sent an error event: %s", providerkit.Excerpt([]byte(data)))
}

// openToolCall describes a tool call whose block is still open, for error
// messages ("" when none is).
func (t *translator) openToolCall() string {
	if n := len(t.openCalls); n > 0 {
		c := t.openCalls[n-1]
		return fmt.Sprintf("tool call %q (%s)", c.name, c.id)
	}
	for _, c := range t.calls {
		if !c.opened {
			return fmt.Sprintf("tool call %d", c.wireIndex)
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// decodeChunk decodes one data payload as encoding/json would, with the
// faster decoder of github.com/go-json-experiment/json: it took half the
// plugin's time per chunk (FuzzDecodeMatchesEncodingJSON holds the two
// to the same result). The usual text and reasoning chunk takes fastChunk,
// a hand-written scanner, instead; what it does not fully understand goes
// to the full decoder.
func decodeChunk(payload []byte, c *wireChunk) error {
	if fastChunk(payload, c) {
		return nil
	}
	*c = wireChunk{}
	return jsonv2.Unmarshal(payload, c, v1compat)
}

// v1compat is encoding/json's semantics (case-insensitive names, duplicate
// names, invalid UTF-8 replaced, ...).
var v1compat = jsonv1.DefaultOptionsV1()
