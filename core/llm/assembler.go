package llm

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/harness-agent/harness/sdk"
)

// Assembler builds the AssistantMessage of one attempt from its stream of
// chunks (DESIGN §5, BlockAssembler). Chunks are applied in arrival order:
//
//   - a block is opened by a block-start, receives deltas and is closed by a
//     block-end; a closed block is final: a start, delta or end for its index
//     is ignored, so the same text never appears twice;
//   - a delta for an index that was never opened opens a text block there
//     (adapters that stream plain content need not announce it; reasoning
//     and tool-call blocks always need a start, which carries their kind and
//     the tool's name);
//   - a repeated start for an open block is ignored when it says the same
//     thing and is a stream_violation when it does not; an end for an index
//     never opened is a stream_violation;
//   - tool-call blocks are counted apart from text: the message lists them in
//     block-index order; a tool call with no id gets "call_N", N counting
//     tool-call blocks in order of arrival;
//   - at block end (or at finish, for blocks still open) a tool call's
//     arguments must be JSON (empty arguments are "{}"); otherwise the
//     stream is a stream_violation naming the tool, and no call is made;
//   - a reasoning block's signature deltas (and a redacted block's
//     encrypted content) are kept apart from its text and given back in
//     AssistantMessage.ReasoningBlocks, byte for byte, so a provider that
//     verifies them (Anthropic) gets them back unchanged;
//   - an error chunk ends the stream with its error; any chunk after finish
//     is a stream_violation.
//
// Usage is taken from the last usage or finish chunk that carries it. After
// the first error every Add returns that error. An Assembler is not safe for
// concurrent use; use one per attempt.
type Assembler struct {
	onChunk func(block int, kind, delta string)

	blocks    map[int]*block
	toolCalls int
	usage     sdk.Usage
	finished  bool
	reason    string
	err       error
}

type block struct {
	index    int
	kind     sdk.BlockKind
	callID   string
	toolName string
	text     strings.Builder
	sig      strings.Builder // reasoning blocks: the provider's signature
	redacted bool            // reasoning blocks: content encrypted, in sig
	closed   bool
}

// NewAssembler returns an Assembler that reports every delta it accepts to
// onChunk (nil: none) with the block index, the block kind ("text",
// "reasoning" or "tool_call") and the delta: the assistant.chunk events.
func NewAssembler(onChunk func(block int, kind, delta string)) *Assembler {
	return &Assembler{onChunk: onChunk, blocks: map[int]*block{}}
}

// Add applies the next chunk of the stream.
func (a *Assembler) Add(c sdk.StreamChunk) error {
	if a.err != nil {
		return a.err
	}
	if a.finished {
		return a.fail(violation("chunk of type %s after finish", chunkTypeName(c.Type)))
	}
	switch c.Type {
	case sdk.ChunkBlockStart:
		return a.start(c)
	case sdk.ChunkBlockDelta:
		return a.delta(c)
	case sdk.ChunkBlockEnd:
		b, ok := a.blocks[c.Index]
		if !ok {
			return a.fail(violation("block-end for block %d, which was never started", c.Index))
		}
		return a.close(b)
	case sdk.ChunkUsage:
		if c.Usage != nil {
			a.usage = *c.Usage
		}
		return nil
	case sdk.ChunkFinish:
		return a.finish(c)
	case sdk.ChunkError:
		if c.Err == nil {
			return a.fail(violation("error chunk without an error"))
		}
		return a.fail(c.Err)
	}
	return a.fail(violation("chunk of unknown type %d", c.Type))
}

func (a *Assembler) start(c sdk.StreamChunk) error {
	switch c.Kind {
	case sdk.BlockText, sdk.BlockReasoning, sdk.BlockToolCall:
	default:
		return a.fail(violation("block %d starts with unknown kind %d", c.Index, c.Kind))
	}
	if b, ok := a.blocks[c.Index]; ok {
		if b.closed || (b.kind == c.Kind && b.toolName == c.ToolName && (c.ToolCallID == "" || c.ToolCallID == b.callID)) {
			return nil
		}
		return a.fail(violation("block %d started twice: as %s %q, then as %s %q", c.Index, b.kind, b.toolName, c.Kind, c.ToolName))
	}
	b := &block{index: c.Index, kind: c.Kind, redacted: c.Kind == sdk.BlockReasoning && c.Redacted}
	if c.Kind == sdk.BlockToolCall {
		if c.ToolName == "" {
			return a.fail(violation("tool-call block %d has no tool name", c.Index))
		}
		a.toolCalls++
		b.toolName, b.callID = c.ToolName, c.ToolCallID
		if b.callID == "" {
			b.callID = fmt.Sprintf("call_%d", a.toolCalls)
		}
	}
	a.blocks[c.Index] = b
	return nil
}

func (a *Assembler) delta(c sdk.StreamChunk) error {
	b, ok := a.blocks[c.Index]
	if !ok {
		b = &block{index: c.Index, kind: sdk.BlockText}
		a.blocks[c.Index] = b
	}
	if b.closed {
		return nil
	}
	if c.Signature != "" && b.kind == sdk.BlockReasoning {
		b.sig.WriteString(c.Signature)
	}
	if c.Text == "" {
		return nil
	}
	b.text.WriteString(c.Text)
	if a.onChunk != nil {
		a.onChunk(c.Index, b.kind.String(), c.Text)
	}
	return nil
}

func (a *Assembler) close(b *block) error {
	if b.closed {
		return nil
	}
	b.closed = true
	if b.kind != sdk.BlockToolCall {
		return nil
	}
	args := strings.TrimSpace(b.text.String())
	if args == "" {
		b.text.Reset()
		b.text.WriteString("{}")
		return nil
	}
	if json.Valid([]byte(args)) {
		// The arguments are the checked text: strings.TrimSpace also drops
		// characters (\v, \f, U+0085…) that are not JSON whitespace.
		b.text.Reset()
		b.text.WriteString(args)
		return nil
	}
	var v json.RawMessage
	reason := json.Unmarshal([]byte(args), &v) // only to say why
	return a.fail(violation("arguments of tool call %q (id %s, block %d) are not valid JSON: %v", b.toolName, b.callID, b.index, reason))
}

func (a *Assembler) finish(c sdk.StreamChunk) error {
	for _, b := range a.ordered() {
		if err := a.close(b); err != nil {
			return err
		}
	}
	if c.Usage != nil {
		a.usage = *c.Usage
	}
	a.finished, a.reason = true, c.Reason
	return nil
}

func (a *Assembler) fail(err error) error {
	a.err = err
	return err
}

func (a *Assembler) ordered() []*block {
	out := make([]*block, 0, len(a.blocks))
	for _, b := range a.blocks {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].index < out[j].index })
	return out
}

// Usage returns the last usage the stream reported, also after a failure:
// what the provider bills for the attempt.
func (a *Assembler) Usage() sdk.Usage { return a.usage }

// Message returns the assembled message once the stream has finished. A
// stream that ended without finish is truncated (retryable: nothing of it is
// used); a stream that failed returns its error.
func (a *Assembler) Message() (AssistantMessage, error) {
	if a.err != nil {
		return AssistantMessage{}, a.err
	}
	if !a.finished {
		return AssistantMessage{}, sdk.Errorf(sdk.KindTruncated, "the model's stream ended before it finished")
	}
	m := AssistantMessage{FinishReason: a.reason, Usage: a.usage}
	var text, reasoning strings.Builder
	signed := false
	for _, b := range a.ordered() {
		switch b.kind {
		case sdk.BlockText:
			text.WriteString(b.text.String())
		case sdk.BlockReasoning:
			reasoning.WriteString(b.text.String())
			m.ReasoningBlocks = append(m.ReasoningBlocks, sdk.ReasoningBlock{Text: b.text.String(), Signature: b.sig.String(), Redacted: b.redacted})
			signed = signed || b.sig.Len() > 0
		case sdk.BlockToolCall:
			m.ToolCalls = append(m.ToolCalls, sdk.ToolCall{ID: b.callID, Name: b.toolName, Arguments: b.text.String()})
		}
	}
	if !signed {
		m.ReasoningBlocks = nil // nothing a provider must see again beyond the text
	}
	m.Text, m.Reasoning = text.String(), reasoning.String()
	return m, nil
}

func violation(format string, args ...any) *sdk.Error {
	return sdk.Errorf(sdk.KindStreamViolation, format, args...)
}

func chunkTypeName(t sdk.ChunkType) string {
	switch t {
	case sdk.ChunkBlockStart:
		return "block-start"
	case sdk.ChunkBlockDelta:
		return "block-delta"
	case sdk.ChunkBlockEnd:
		return "block-end"
	case sdk.ChunkUsage:
		return "usage"
	case sdk.ChunkFinish:
		return "finish"
	case sdk.ChunkError:
		return "error"
	}
	return fmt.Sprintf("%d", t)
}
