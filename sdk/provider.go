package sdk

import (
	"context"
	"encoding/json"
)

// Pricing is in USD per one million tokens.
type Pricing struct {
	InputCacheHit  float64
	InputCacheMiss float64
	Output         float64
	// InputCacheWrite prices prompt tokens written to the provider's cache
	// (Anthropic bills them above a miss); 0 prices them as misses.
	InputCacheWrite float64
}

// ModelInfo is the metadata of one model.
type ModelInfo struct {
	ID                string
	ContextWindow     int64
	MaxOutput         int64
	Pricing           *Pricing // nil when unknown
	SupportsTools     bool
	SupportsReasoning bool
	SupportsCaching   bool
}

// Role of a message.
type Role string

// Message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ToolCall is a call the model asked for.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one message of a conversation.
type Message struct {
	Role       Role
	Content    string
	Reasoning  string     // assistant reasoning (sent back only when the model needs it)
	ToolCalls  []ToolCall // assistant tool calls
	ToolCallID string     // for RoleTool: the call it answers
	// ReasoningBlocks are the assistant turn's reasoning blocks with their
	// signatures, for providers that need them sent back unchanged
	// (Anthropic); empty when the provider streamed no signature.
	ReasoningBlocks []ReasoningBlock
	// Pinned marks the conversation's stable head (system prompt and task),
	// which compaction never drops: providers with explicit prompt caching
	// place a cache breakpoint after the last pinned message.
	Pinned bool
	// IsError marks a RoleTool message whose call failed; its Content says
	// how (providers with a flag for it, like Anthropic, set it too).
	IsError bool
}

// ReasoningBlock is one reasoning block of an assistant turn as the
// provider streamed it.
type ReasoningBlock struct {
	Text string `json:"text,omitempty"`
	// Signature is the provider's opaque verification data (for a redacted
	// block, its encrypted content), sent back byte for byte.
	Signature string `json:"signature,omitempty"`
	Redacted  bool   `json:"redacted,omitempty"`
}

// ToolDefinition is a tool offered to the model.
type ToolDefinition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// StreamRequest is one model request, bound to the model prepared with PrepareCall.
type StreamRequest struct {
	Model           ModelInfo
	Thinking        bool
	ThinkingBudget  int64 // reasoning tokens per request; 0: the provider's default
	ReplayReasoning bool
	Messages        []Message
	Tools           []ToolDefinition
	ToolChoice      string // "auto" (default), "none", "required" or a tool name
	MaxOutput       int64
	Temperature     float64
}

// BlockKind is the kind of a streamed content block.
type BlockKind int

// Block kinds.
const (
	BlockText BlockKind = iota + 1
	BlockReasoning
	BlockToolCall
)

// String returns "text", "reasoning" or "tool_call".
func (k BlockKind) String() string {
	switch k {
	case BlockText:
		return "text"
	case BlockReasoning:
		return "reasoning"
	case BlockToolCall:
		return "tool_call"
	}
	return "unknown"
}

// Usage counts tokens of one request.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CacheHitTokens   int64 `json:"cache_hit_tokens"`
	CacheMissTokens  int64 `json:"cache_miss_tokens"`
	ReasoningTokens  int64 `json:"reasoning_tokens"`
	// CacheWriteTokens are prompt tokens written to the provider's cache
	// (Anthropic's cache_creation_input_tokens). PromptTokens is
	// CacheHitTokens + CacheMissTokens + CacheWriteTokens.
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// ChunkType says which fields of a StreamChunk are set.
type ChunkType int

// Chunk types.
const (
	ChunkBlockStart ChunkType = iota + 1
	ChunkBlockDelta
	ChunkBlockEnd
	ChunkUsage
	ChunkFinish
	ChunkError
)

// StreamChunk is one unit of a streamed model answer. A block is opened by
// ChunkBlockStart, receives ChunkBlockDelta, and is closed by ChunkBlockEnd;
// ChunkFinish ends the stream and nothing may follow it.
type StreamChunk struct {
	Type       ChunkType
	Index      int       // block index (start, delta, end)
	Kind       BlockKind // block kind (start)
	ToolCallID string    // tool-call blocks (start)
	ToolName   string    // tool-call blocks (start)
	Redacted   bool      // reasoning blocks (start): the content is encrypted and arrives as Signature
	Text       string    // delta text or tool argument fragment
	Signature  string    // reasoning blocks (delta): verification data, sent back unchanged
	Usage      *Usage    // usage, finish
	Reason     string    // finish reason: "stop", "length", "tool_calls", ...
	Err        *Error    // error
}

// Provider is what an LLM provider plugin implements. The SDK's server
// handles PrepareCall handles and adapter generations: Stream is only called
// with a request whose handle belongs to the current generation.
type Provider interface {
	// Configure receives the HCL provider block as JSON. Reconfiguring
	// starts a new adapter generation.
	Configure(ctx context.Context, config json.RawMessage) error
	Models(ctx context.Context) ([]ModelInfo, error)
	// Stream runs one request, calling emit for every chunk in order. A
	// failure is returned as an *Error (the SDK sends it as an error chunk).
	// req.Messages is the provider's own slice, but the messages' slices
	// (ToolCalls, ReasoningBlocks) are shared with the conversation the
	// SDK keeps for the next request: read them, never write them.
	Stream(ctx context.Context, req StreamRequest, emit func(StreamChunk) error) error
}

// ProviderDescriber is implemented by a provider that owns its settings:
// SettingsSchema returns the JSON Schema (an object; build it with
// sdk/schema) of the attributes of an HCL provider block besides "plugin".
// `harness validate` checks every block against it, with file:line:col
// diagnostics, and Configure receives the decoded values as a JSON object.
// Mark secrets (API keys) with schema.Prop.Secret: the host redacts their
// values from events, errors and logs.
type ProviderDescriber interface {
	SettingsSchema(ctx context.Context) (json.RawMessage, error)
}

// DeltaKeeper is implemented by a provider whose deltas must reach the
// host exactly as it emitted them (a scripted provider that tests how a
// host streams). By default the SDK sends a provider's chunks from its own
// goroutine and merges consecutive text deltas of one block that queued up
// while a send was in flight; when KeepDeltas returns true, every chunk is
// sent as it is emitted, before emit returns.
type DeltaKeeper interface {
	KeepDeltas() bool
}
