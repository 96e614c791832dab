// Package event is the event vocabulary of DESIGN §8: one Go type per event
// type with its typed payload. Everything that writes an event (the agent
// loop, the tool executor, the approval pipeline, the runner) hands one of
// these to a Recorder; everything that reads events back (resume, the
// renderer, telemetry, `sessions show`) decodes them with Decode. The
// session store persists the payload as JSON, and `harness run --json`
// prints it byte for byte, so a field's JSON name, its order in the struct
// and its omitempty are part of the public contract (docs/events.md, which
// a test checks against these types).
//
// Payloads that used to be written as maps keep their fields in
// alphabetical order of their JSON names: that is the order a map encodes
// in, so the stream stays byte-compatible.
package event

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// Data is the payload of one event type. Only the types of this package
// implement it, so a Recorder cannot be handed an untyped map.
type Data interface {
	// EventType is the event's type name, e.g. "tool.call".
	EventType() string
	isEvent()
}

// Recorder commits events. Implementations must be safe for concurrent use.
type Recorder interface {
	Record(ctx context.Context, d Data) error
}

// A Batcher is a Recorder that can commit several events in one
// transaction: all or none, in order, none of them shown before all are
// committed.
type Batcher interface {
	Recorder
	RecordAll(ctx context.Context, ds ...Data) error
}

// RecordAll commits ds through rec: in one transaction when rec is a
// Batcher, else one by one (stopping at the first failure).
func RecordAll(ctx context.Context, rec Recorder, ds ...Data) error {
	if b, ok := rec.(Batcher); ok {
		return b.RecordAll(ctx, ds...)
	}
	for _, d := range ds {
		if err := rec.Record(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// A Deferrer is a Batcher that can hold events back: a deferred event is
// committed (and only then shown) in the same transaction as the next
// Record or RecordAll, or by Flush, before the events given there. Whoever
// defers must Flush at the end of its step, so a deferred event waits only
// for the rest of the step (the other results of a batch of tool calls),
// never for something that acts on the world after it.
type Deferrer interface {
	Batcher
	Defer(ctx context.Context, d Data)
	Flush(ctx context.Context) error
}

// Defer defers d when rec is a Deferrer, else records it now.
func Defer(ctx context.Context, rec Recorder, d Data) error {
	if df, ok := rec.(Deferrer); ok {
		df.Defer(ctx, d)
		return nil
	}
	return rec.Record(ctx, d)
}

// Flush commits what rec holds back, when it is a Deferrer.
func Flush(ctx context.Context, rec Recorder) error {
	if df, ok := rec.(Deferrer); ok {
		return df.Flush(ctx)
	}
	return nil
}

// Discard is a Recorder that records nothing.
var Discard Recorder = discard{}

type discard struct{}

func (discard) Record(context.Context, Data) error { return nil }

// Event type names (DESIGN §8, docs/events.md).
const (
	TypeSessionStarted    = "session.started"
	TypeSessionResumed    = "session.resumed"
	TypeUserMessage       = "user.message"
	TypeTurnInterrupted   = "turn.interrupted"
	TypeLLMRequest        = "llm.request"
	TypeAssistantChunk    = "assistant.chunk"
	TypeLLMRetry          = "llm.retry"
	TypeAssistantMessage  = "assistant.message"
	TypeLLMUsage          = "llm.usage"
	TypeToolCall          = "tool.call"
	TypeToolProgress      = "tool.progress"
	TypeActionProposed    = "action.proposed"
	TypeActionDecided     = "action.decided"
	TypeToolResult        = "tool.result"
	TypeArtifactNote      = "artifact.note"
	TypeArtifactDecision  = "artifact.decision"
	TypeArtifactChecklist = "artifact.checklist"
	TypeContextCompacted  = "context.compacted"
	TypeLimitReached      = "toolloop.limit_reached"
	TypeAgentResponse     = "agent.response"
	TypeError             = "error"
	TypeSessionEnded      = "session.ended"

	// ArtifactPrefix is followed by an artifact's type: artifact.note.
	ArtifactPrefix = "artifact."
)

// All returns a zero value of every event type, in the order of
// docs/events.md.
func All() []Data {
	return []Data{
		SessionStarted{}, SessionResumed{}, UserMessage{}, TurnInterrupted{},
		LLMRequest{}, AssistantChunk{}, LLMRetry{}, AssistantMessage{}, LLMUsage{},
		ToolCall{}, ToolProgress{}, ActionProposed{}, ActionDecided{}, ToolResult{},
		Note{}, Decision{}, Checklist{},
		ContextCompacted{}, LimitReached{}, AgentResponse{}, Error{}, SessionEnded{},
	}
}

// Decode returns the typed payload of a recorded event: a value of one of
// this package's types (not a pointer). An unknown type is an error, as is
// data that does not decode into the type's payload.
func Decode(ev session.Event) (Data, error) {
	if d, ok := ev.Value.(Data); ok && d.EventType() == ev.Type {
		return d, nil // a commit's own event: Data encodes exactly d
	}
	d, err := DecodeData(ev.Type, ev.Data)
	if err != nil {
		return nil, fmt.Errorf("event %d (%s): %w", ev.Seq, ev.Type, err)
	}
	return d, nil
}

// DecodeData decodes data as the payload of an event of type typ. Fields
// it does not know are ignored (docs/events.md: consumers ignore fields
// they do not know), so a newer harness's sessions still read.
func DecodeData(typ string, data json.RawMessage) (Data, error) {
	switch typ {
	case TypeSessionStarted:
		return decode[SessionStarted](data)
	case TypeSessionResumed:
		return decode[SessionResumed](data)
	case TypeUserMessage:
		return decode[UserMessage](data)
	case TypeTurnInterrupted:
		return decode[TurnInterrupted](data)
	case TypeLLMRequest:
		return decode[LLMRequest](data)
	case TypeAssistantChunk:
		return decode[AssistantChunk](data)
	case TypeLLMRetry:
		return decode[LLMRetry](data)
	case TypeAssistantMessage:
		return decode[AssistantMessage](data)
	case TypeLLMUsage:
		return decode[LLMUsage](data)
	case TypeToolCall:
		return decode[ToolCall](data)
	case TypeToolProgress:
		return decode[ToolProgress](data)
	case TypeActionProposed:
		return decode[ActionProposed](data)
	case TypeActionDecided:
		return decode[ActionDecided](data)
	case TypeToolResult:
		return decode[ToolResult](data)
	case TypeArtifactNote:
		return decode[Note](data)
	case TypeArtifactDecision:
		return decode[Decision](data)
	case TypeArtifactChecklist:
		return decode[Checklist](data)
	case TypeContextCompacted:
		return decode[ContextCompacted](data)
	case TypeLimitReached:
		return decode[LimitReached](data)
	case TypeAgentResponse:
		return decode[AgentResponse](data)
	case TypeError:
		return decode[Error](data)
	case TypeSessionEnded:
		return decode[SessionEnded](data)
	}
	return nil, fmt.Errorf("unknown event type %q (the known types are in docs/events.md)", typ)
}

// As decodes ev as a T: an error when ev is an event of another type or
// its data does not decode.
func As[T Data](ev session.Event) (T, error) {
	var zero T
	if ev.Type != zero.EventType() {
		return zero, fmt.Errorf("event %d is %s, not %s", ev.Seq, ev.Type, zero.EventType())
	}
	d, err := Decode(ev)
	if err != nil {
		return zero, err
	}
	return d.(T), nil
}

func decode[T Data](data json.RawMessage) (Data, error) {
	var v T
	if len(data) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// SessionStarted is a session's first event.
type SessionStarted struct {
	Agent string `json:"agent"`
	// Config is the absolute path of the configuration, never its values.
	Config string `json:"config"`
	// Model is the agent's first model binding.
	Model string `json:"model"`
	// Task is the first user message as sent, with the session facts.
	Task      string `json:"task"`
	Workspace string `json:"workspace"`
	// Engine says where a session runs when not on the local engine.
	Engine *Engine `json:"engine,omitempty"`
}

// Engine is where a session runs: the Temporal engine's name, the
// frontend's address and the task queue. Its fields are in alphabetical
// order: it was a map.
type Engine struct {
	Address string `json:"address"`
	// Ask: the run that started it asks a person at its terminal: the
	// workers leave what policy would ask about pending for it.
	Ask       bool   `json:"ask,omitempty"`
	Name      string `json:"name"`
	TaskQueue string `json:"task_queue"`
	// Yes: started with --yes (the workers approve what policy would ask
	// about).
	Yes bool `json:"yes,omitempty"`
}

// SessionResumed: a `run --resume` continues the session.
type SessionResumed struct {
	Agent string `json:"agent"`
	// Engine is where the session runs from here on, when not the local
	// engine (as in session.started).
	Engine   *Engine `json:"engine,omitempty"`
	Messages int     `json:"messages"`
	Turns    int     `json:"turns"`
}

// UserMessage is a further message of an interactive or resumed session.
type UserMessage struct {
	Text string `json:"text"`
}

// TurnInterrupted: a person stopped a turn (Ctrl-C) and the session went
// on. Partial is the answer's text so far; Request is true when the model
// was answering, false when tools ran.
type TurnInterrupted struct {
	Partial string `json:"partial"`
	Request bool   `json:"request"`
}

// LLMRequest is one model request about to be sent.
type LLMRequest struct {
	// Fallback is the model's 1-based position in the agent's list, from
	// 2: a fallback model is tried, which is a request of its own.
	Fallback int `json:"fallback,omitempty"`
	// HookMetadata is what llm/stream hooks added, when any did.
	HookMetadata    map[string]string `json:"hook_metadata,omitempty"`
	Messages        int               `json:"messages"`
	Model           string            `json:"model"`
	PromptBytes     int               `json:"prompt_bytes"`
	PromptTokensEst int64             `json:"prompt_tokens_est"`
	// SharedPrefixBytes are the leading bytes equal to the previous
	// request of the session: what a provider's prefix cache can hit.
	SharedPrefixBytes int `json:"shared_prefix_bytes"`
	Turn              int `json:"turn"`
}

// Chunk kinds (AssistantChunk.Kind): the names of sdk.BlockKind, which the
// llm layer writes.
const (
	ChunkText      = "text"
	ChunkReasoning = "reasoning"
	ChunkToolCall  = "tool_call"
)

// AssistantChunk is the text of one stream block that came in within a
// short time.
type AssistantChunk struct {
	Block int    `json:"block"`
	Delta string `json:"delta"`
	Kind  string `json:"kind"`
}

// LLMRetry: attempt failed with an error of kind and is retried after the
// delay. Every assistant.chunk since the request or the previous retry is
// void.
type LLMRetry struct {
	Attempt int           `json:"attempt"`
	DelayMS int64         `json:"delay_ms"`
	Kind    sdk.ErrorKind `json:"kind"`
}

// AssistantMessage is a complete answer of the model.
type AssistantMessage struct {
	Content      string `json:"content"`
	FinishReason string `json:"finish_reason"`
	// Model is the binding that answered.
	Model     string `json:"model"`
	Reasoning string `json:"reasoning"`
	// ReasoningBlocks carry the signatures a provider verifies (Anthropic),
	// sent back byte for byte, also on resume.
	ReasoningBlocks []sdk.ReasoningBlock `json:"reasoning_blocks,omitempty"`
	// ToolCalls is always encoded, [] when there are none.
	ToolCalls []Call `json:"tool_calls"`
	Turn      int    `json:"turn"`
}

// MarshalJSON encodes no tool calls as [], as the stream always had.
func (m AssistantMessage) MarshalJSON() ([]byte, error) {
	type plain AssistantMessage
	if m.ToolCalls == nil {
		m.ToolCalls = []Call{}
	}
	return json.Marshal(plain(m))
}

// Call is one tool call of an assistant message.
type Call struct {
	Arguments json.RawMessage `json:"arguments"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
}

// LLMUsage meters one response (or a failed attempt the provider billed).
type LLMUsage struct {
	CacheHitTokens   int64   `json:"cache_hit_tokens"`
	CacheMissTokens  int64   `json:"cache_miss_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// Estimated: the response was stopped at a limit while it streamed and
	// the figures are estimates.
	Estimated       bool   `json:"estimated,omitempty"`
	Model           string `json:"model"`
	PromptTokens    int64  `json:"prompt_tokens"`
	ReasoningTokens int64  `json:"reasoning_tokens"`
	Turn            int    `json:"turn"`
}

// ToolCall is a call about to run; the calls of one turn come in the
// model's order.
type ToolCall struct {
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// Progress streams (ToolProgress.Stream).
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// ToolProgress is output a running tool streamed.
type ToolProgress struct {
	CallID string `json:"call_id"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// ActionProposed: a call needs a decision before it runs.
type ActionProposed struct {
	ActionID string `json:"action_id"`
	CallID   string `json:"call_id"`
	Tool     string `json:"tool"`
	// Kind is the action kind (session.ActionKindTerminal, …).
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
}

// ActionDecided is the decision on a proposed action.
type ActionDecided struct {
	ActionID string `json:"action_id"`
	CallID   string `json:"call_id"`
	Decision string `json:"decision"`
	By       string `json:"by"`
	Rule     string `json:"rule"`
	// Remember lists the scopes an "always" approved for the rest of the
	// session; a resumed run remembers them again.
	Remember []string `json:"remember,omitempty"`
}

// ErrorData is a structured error as events carry it.
type ErrorData struct {
	Kind    sdk.ErrorKind `json:"kind"`
	Message string        `json:"message"`
}

// ToolResult is the outcome of a call. Content is what the model was
// given, so a resumed conversation reads it from here. A call whose action
// is decided after the run gets a second one.
type ToolResult struct {
	CallID       string          `json:"call_id"`
	Tool         string          `json:"tool"`
	OK           bool            `json:"ok"`
	Content      string          `json:"content"`
	Error        *ErrorData      `json:"error,omitempty"`
	Presentation json.RawMessage `json:"presentation,omitempty"`
	DurationMS   int64           `json:"duration_ms"`
	// ActionID is set for a call that went through the action pipeline.
	ActionID string `json:"action_id,omitempty"`
}

// Note is the payload of artifact.note.
type Note struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Decision is the payload of artifact.decision.
type Decision struct {
	Title     string   `json:"title"`
	Options   []string `json:"options"`
	Chosen    string   `json:"chosen"`
	Rationale string   `json:"rationale"`
}

// Checklist is the payload of artifact.checklist.
type Checklist struct {
	Title string          `json:"title"`
	Items []ChecklistItem `json:"items"`
}

// ChecklistItem is one item of a checklist.
type ChecklistItem struct {
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// Summarizers (ContextCompacted.Summarizer).
const (
	SummarizerModel    = "model"
	SummarizerFallback = "fallback"
)

// ContextCompacted: older messages were replaced by a summary.
type ContextCompacted struct {
	DroppedMessages int    `json:"dropped_messages"`
	Summarizer      string `json:"summarizer"`
	TokensAfter     int64  `json:"tokens_after"`
	TokensBefore    int64  `json:"tokens_before"`
}

// LimitReached: a limit or budget stopped the run.
type LimitReached struct {
	CostUSD float64 `json:"cost_usd"`
	Limit   string  `json:"limit"`
	Tokens  int64   `json:"tokens"`
	Turns   int     `json:"turns"`
}

// AgentResponse is the answer that ended the turn loop.
type AgentResponse struct {
	// Refusal is true when the model refused (finish reason "refusal").
	Refusal bool   `json:"refusal,omitempty"`
	Text    string `json:"text"`
}

// Error is the failure that ended the run.
type Error struct {
	Kind    sdk.ErrorKind `json:"kind"`
	Message string        `json:"message"`
}

// SessionEnded is the last event of each run.
type SessionEnded struct {
	CostUSD        float64 `json:"cost_usd"`
	PendingActions int     `json:"pending_actions"`
	Status         string  `json:"status"`
	Tokens         int64   `json:"tokens"`
	Turns          int     `json:"turns"`
}

func (SessionStarted) EventType() string   { return TypeSessionStarted }
func (SessionResumed) EventType() string   { return TypeSessionResumed }
func (UserMessage) EventType() string      { return TypeUserMessage }
func (TurnInterrupted) EventType() string  { return TypeTurnInterrupted }
func (LLMRequest) EventType() string       { return TypeLLMRequest }
func (AssistantChunk) EventType() string   { return TypeAssistantChunk }
func (LLMRetry) EventType() string         { return TypeLLMRetry }
func (AssistantMessage) EventType() string { return TypeAssistantMessage }
func (LLMUsage) EventType() string         { return TypeLLMUsage }
func (ToolCall) EventType() string         { return TypeToolCall }
func (ToolProgress) EventType() string     { return TypeToolProgress }
func (ActionProposed) EventType() string   { return TypeActionProposed }
func (ActionDecided) EventType() string    { return TypeActionDecided }
func (ToolResult) EventType() string       { return TypeToolResult }
func (Note) EventType() string             { return TypeArtifactNote }
func (Decision) EventType() string         { return TypeArtifactDecision }
func (Checklist) EventType() string        { return TypeArtifactChecklist }
func (ContextCompacted) EventType() string { return TypeContextCompacted }
func (LimitReached) EventType() string     { return TypeLimitReached }
func (AgentResponse) EventType() string    { return TypeAgentResponse }
func (Error) EventType() string            { return TypeError }
func (SessionEnded) EventType() string     { return TypeSessionEnded }

func (SessionStarted) isEvent()   {}
func (SessionResumed) isEvent()   {}
func (UserMessage) isEvent()      {}
func (TurnInterrupted) isEvent()  {}
func (LLMRequest) isEvent()       {}
func (AssistantChunk) isEvent()   {}
func (LLMRetry) isEvent()         {}
func (AssistantMessage) isEvent() {}
func (LLMUsage) isEvent()         {}
func (ToolCall) isEvent()         {}
func (ToolProgress) isEvent()     {}
func (ActionProposed) isEvent()   {}
func (ActionDecided) isEvent()    {}
func (ToolResult) isEvent()       {}
func (Note) isEvent()             {}
func (Decision) isEvent()         {}
func (Checklist) isEvent()        {}
func (ContextCompacted) isEvent() {}
func (LimitReached) isEvent()     {}
func (AgentResponse) isEvent()    {}
func (Error) isEvent()            {}
func (SessionEnded) isEvent()     {}
