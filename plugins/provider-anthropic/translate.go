package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/sdk"
)

// wireEvent is the data of one Messages stream event; the type says which
// fields are set.
type wireEvent struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string     `json:"id"`
		Model string     `json:"model"`
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	Index        *int            `json:"index"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        json.RawMessage `json:"delta"`
	Usage        *wireUsage      `json:"usage"`
	Error        *apiError       `json:"error"`
}

type wireContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type wireDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	Thinking    string  `json:"thinking"`
	Signature   string  `json:"signature"`
	PartialJSON string  `json:"partial_json"`
	StopReason  *string `json:"stop_reason"`
	StopDetails *struct {
		Category    string `json:"category"`
		Explanation string `json:"explanation"`
	} `json:"stop_details"`
}

// wireUsage is a usage object; message_delta may carry any subset of it,
// and a field it carries replaces the earlier figure.
type wireUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
}

// usage is the running usage of a message.
type usage struct{ input, cacheWrite, cacheRead, output int64 }

func (u *usage) merge(w *wireUsage) {
	if w == nil {
		return
	}
	set := func(dst *int64, src *int64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&u.input, w.InputTokens)
	set(&u.cacheWrite, w.CacheCreationInputTokens)
	set(&u.cacheRead, w.CacheReadInputTokens)
	set(&u.output, w.OutputTokens)
}

// sdkUsage: input_tokens counts uncached input only; the prompt is its sum
// with cache reads (hits) and cache writes.
func (u usage) sdkUsage() *sdk.Usage {
	return &sdk.Usage{PromptTokens: u.input + u.cacheRead + u.cacheWrite, CompletionTokens: u.output,
		CacheHitTokens: u.cacheRead, CacheMissTokens: u.input, CacheWriteTokens: u.cacheWrite}
}

// blockState is one content block of the message, keyed by its index.
type blockState struct {
	kind     sdk.BlockKind
	skipped  bool // a server-side or unknown block type: not the client's to run or show
	typ      string
	name, id string
	start    json.RawMessage // tool_use input given at block start
	argBytes int
	closed   bool
}

// translator turns stream events into StreamChunks: content blocks map one
// to one onto the assembler's blocks, with the wire index as block index.
type translator struct {
	emit func(sdk.StreamChunk) error

	messageID string
	started   bool
	blocks    map[int]*blockState
	stop      string
	refusal   string // the explanation of a refusal, when the API gave one
	usage     usage
	hasUsage  bool
	events    int
}

func newTranslator(emit func(sdk.StreamChunk) error) *translator {
	return &translator{emit: emit, blocks: map[int]*blockState{}}
}

// event handles the data of one event. It reports done at message_stop.
func (t *translator) event(eventType string, data []byte) (done bool, err error) {
	t.events++
	var ev wireEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, sdk.Errorf(sdk.KindStreamViolation, "anthropic: event %d (%s) is not JSON (%v): %s", t.events, eventType, err, providerkit.Excerpt(data))
	}
	if ev.Type == "" {
		ev.Type = eventType
	}
	if !t.started && isMessageEvent(ev.Type) {
		return false, t.violation("%s before message_start", ev.Type)
	}
	switch ev.Type {
	case "message_start":
		return false, t.messageStart(&ev)
	case "content_block_start":
		return false, t.blockStart(&ev)
	case "content_block_delta":
		return false, t.blockDelta(&ev)
	case "content_block_stop":
		return false, t.blockStop(&ev)
	case "message_delta":
		return false, t.messageDelta(&ev)
	case "message_stop":
		return true, t.messageStop()
	case "error":
		return false, t.errorEvent(&ev, data)
	}
	return false, nil // ping, and event types added after this adapter
}

func isMessageEvent(typ string) bool {
	switch typ {
	case "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop":
		return true
	}
	return false
}

func (t *translator) violation(format string, args ...any) error {
	return sdk.Errorf(sdk.KindStreamViolation, "anthropic: event %d: %s", t.events, fmt.Sprintf(format, args...))
}

func (t *translator) messageStart(ev *wireEvent) error {
	if ev.Message == nil {
		return t.violation("message_start without a message")
	}
	if t.started {
		if ev.Message.ID == t.messageID {
			return nil // a repeated message_start of the same message says nothing new
		}
		return t.violation("message_start of message %q while message %q is still open", ev.Message.ID, t.messageID)
	}
	t.started, t.messageID = true, ev.Message.ID
	if ev.Message.Usage != nil {
		t.usage.merge(ev.Message.Usage)
		t.hasUsage = true
	}
	return nil
}

func (t *translator) block(ev *wireEvent, what string) (int, *blockState, error) {
	if ev.Index == nil {
		return 0, nil, t.violation("%s without an index", what)
	}
	b := t.blocks[*ev.Index]
	if b == nil {
		return *ev.Index, nil, t.violation("%s for block %d, which never started", what, *ev.Index)
	}
	return *ev.Index, b, nil
}

func (t *translator) blockStart(ev *wireEvent) error {
	if ev.Index == nil || *ev.Index < 0 {
		return t.violation("content_block_start without a valid index")
	}
	i := *ev.Index
	if _, dup := t.blocks[i]; dup {
		return t.violation("block %d started twice", i)
	}
	var cb wireContentBlock
	if err := json.Unmarshal(ev.ContentBlock, &cb); err != nil {
		return t.violation("content_block_start %d has no valid content_block: %v", i, err)
	}
	b := &blockState{typ: cb.Type}
	t.blocks[i] = b
	switch cb.Type {
	case "text":
		b.kind = sdk.BlockText
		if err := t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: i, Kind: sdk.BlockText}); err != nil {
			return err
		}
		return t.delta(i, sdk.StreamChunk{Text: cb.Text})
	case "thinking":
		b.kind = sdk.BlockReasoning
		if err := t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: i, Kind: sdk.BlockReasoning}); err != nil {
			return err
		}
		return t.delta(i, sdk.StreamChunk{Text: cb.Thinking, Signature: cb.Signature})
	case "redacted_thinking":
		b.kind = sdk.BlockReasoning
		if err := t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: i, Kind: sdk.BlockReasoning, Redacted: true}); err != nil {
			return err
		}
		return t.delta(i, sdk.StreamChunk{Signature: cb.Data})
	case "tool_use":
		if cb.ID == "" || cb.Name == "" {
			return t.violation("tool_use block %d has no id or no name", i)
		}
		b.kind, b.id, b.name = sdk.BlockToolCall, cb.ID, cb.Name
		if in := compact(cb.Input); in != "" && in != "{}" {
			b.start = cb.Input
		}
		return t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: i, Kind: sdk.BlockToolCall, ToolCallID: cb.ID, ToolName: cb.Name})
	}
	// server_tool_use, web_search_tool_result, *_tool_result, mcp_tool_use,
	// container_upload and types added later: the server ran or will run
	// them; the client neither executes nor shows them.
	b.skipped = true
	return nil
}

// delta emits a delta chunk unless it carries nothing.
func (t *translator) delta(i int, c sdk.StreamChunk) error {
	if c.Text == "" && c.Signature == "" {
		return nil
	}
	c.Type, c.Index = sdk.ChunkBlockDelta, i
	return t.emit(c)
}

func (t *translator) blockDelta(ev *wireEvent) error {
	i, b, err := t.block(ev, "content_block_delta")
	if err != nil {
		return err
	}
	if b.skipped {
		return nil
	}
	if b.closed {
		return t.violation("content_block_delta for block %d after its content_block_stop", i)
	}
	var d wireDelta
	if err := json.Unmarshal(ev.Delta, &d); err != nil {
		return t.violation("content_block_delta %d has no valid delta: %v", i, err)
	}
	want := map[string]string{"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "thinking", "input_json_delta": "tool_use"}[d.Type]
	switch {
	case want == "":
		return nil // citations_delta and delta types added later carry nothing the harness keeps
	case want != b.typ && !(d.Type == "signature_delta" && b.typ == "redacted_thinking"):
		return t.violation("a %s for block %d, which is a %s block", d.Type, i, b.typ)
	}
	switch d.Type {
	case "text_delta":
		return t.delta(i, sdk.StreamChunk{Text: d.Text})
	case "thinking_delta":
		return t.delta(i, sdk.StreamChunk{Text: d.Thinking})
	case "signature_delta":
		return t.delta(i, sdk.StreamChunk{Signature: d.Signature})
	}
	b.argBytes += len(d.PartialJSON)
	return t.delta(i, sdk.StreamChunk{Text: d.PartialJSON})
}

func (t *translator) blockStop(ev *wireEvent) error {
	i, b, err := t.block(ev, "content_block_stop")
	if err != nil || b.skipped || b.closed {
		return err
	}
	return t.close(i, b)
}

// close ends a block. A tool call that streamed no input bytes takes the
// input its start carried, else {}; its JSON is checked by the assembler
// at block end, so a half call is never taken for a whole one.
func (t *translator) close(i int, b *blockState) error {
	b.closed = true
	if b.kind == sdk.BlockToolCall && b.argBytes == 0 {
		args := "{}"
		if b.start != nil {
			args = string(b.start)
		}
		if err := t.delta(i, sdk.StreamChunk{Text: args}); err != nil {
			return err
		}
	}
	return t.emit(sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: i})
}

func (t *translator) messageDelta(ev *wireEvent) error {
	var d wireDelta
	if len(ev.Delta) > 0 {
		if err := json.Unmarshal(ev.Delta, &d); err != nil {
			return t.violation("message_delta has no valid delta: %v", err)
		}
	}
	if d.StopReason != nil && *d.StopReason != "" {
		t.stop = *d.StopReason
	}
	if sd := d.StopDetails; sd != nil && sd.Explanation != "" {
		t.refusal = sd.Explanation
		if sd.Category != "" {
			t.refusal += " (category " + sd.Category + ")"
		}
	}
	if ev.Usage != nil {
		t.usage.merge(ev.Usage) // the later figures win
		t.hasUsage = true
	}
	return nil
}

// messageStop ends the stream normally: blocks still open are closed and
// the finish chunk carries the mapped stop reason and the final usage. A
// refusal with an explanation and no text of the model's own gets a text
// block saying so, so the person sees why there is no answer.
func (t *translator) messageStop() error {
	hasText := false
	for i := 0; i <= t.maxIndex(); i++ {
		b := t.blocks[i]
		hasText = hasText || (b != nil && b.kind == sdk.BlockText)
		if b != nil && !b.skipped && !b.closed {
			if err := t.close(i, b); err != nil {
				return err
			}
		}
	}
	if t.stop == "refusal" && t.refusal != "" && !hasText {
		i := t.maxIndex() + 1
		t.blocks[i] = &blockState{kind: sdk.BlockText, typ: "text", closed: true}
		for _, c := range []sdk.StreamChunk{
			{Type: sdk.ChunkBlockStart, Index: i, Kind: sdk.BlockText},
			{Type: sdk.ChunkBlockDelta, Index: i, Text: "Refused: " + t.refusal},
			{Type: sdk.ChunkBlockEnd, Index: i},
		} {
			if err := t.emit(c); err != nil {
				return err
			}
		}
	}
	return t.emit(sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: finishReason(t.stop), Usage: t.usage.sdkUsage()})
}

func (t *translator) maxIndex() int {
	m := -1
	for i := range t.blocks {
		m = max(m, i)
	}
	return m
}

// finishReason maps stop_reason onto the harness's finish reasons.
func finishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence", "":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	}
	return stop // refusal, pause_turn, and reasons added later, as the API names them
}

func (t *translator) errorEvent(ev *wireEvent, data []byte) error {
	e := apiError{Message: string(data)}
	if ev.Error != nil {
		e = *ev.Error
	}
	return sdk.Errorf(kindForType(e.Type), "anthropic: the server sent an error event after %d events: %s", t.events-1, e)
}

// openToolCall describes a tool call whose block is still open, for error
// messages ("" when none is).
func (t *translator) openToolCall() string {
	for i := t.maxIndex(); i >= 0; i-- {
		if b := t.blocks[i]; b != nil && b.kind == sdk.BlockToolCall && !b.closed {
			return fmt.Sprintf("tool call %q (%s)", b.name, b.id)
		}
	}
	return ""
}

// compact is raw JSON without insignificant spaces ("" when it is absent).
func compact(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
