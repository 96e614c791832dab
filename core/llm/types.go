package llm

import "github.com/harness-agent/harness/sdk"

// Binding is an HCL model resolved for calls: the provider that serves it and
// the model metadata after HCL values have overridden what the provider
// reports.
type Binding struct {
	Name            string // the HCL model block's name
	Provider        string // the HCL provider block's name
	Model           sdk.ModelInfo
	Thinking        bool  // reasoning mode on
	ThinkingBudget  int64 // reasoning tokens per request; 0: the provider's default
	ReplayReasoning bool  // send the reasoning of tool-call turns back
}

// PrepareRequest is what a Streamer sends to the provider's PrepareCall.
func (b Binding) PrepareRequest() sdk.PrepareRequest {
	return sdk.PrepareRequest{Model: b.Model, Thinking: b.Thinking, ThinkingBudget: b.ThinkingBudget, ReplayReasoning: b.ReplayReasoning}
}

// Request is one model call of the agent loop.
type Request struct {
	Bindings   []Binding // fallback order: the first is tried first
	Messages   []sdk.Message
	Tools      []sdk.ToolDefinition
	ToolChoice string // "auto" (default), "none", "required" or a tool name
	MaxOutput  int64  // 0: the binding's max_output
	// PromptTokensEst is the caller's estimate of the prompt's tokens: the
	// prompt's share of Progress until the server reports usage.
	PromptTokensEst int64
	// Limit, when set, is asked after every chunk; a limit it names stops
	// the attempt at once with a *LimitError, and the attempt's usage so
	// far (estimated where the server sent none) is metered.
	Limit LimitCheck
	// Budget, when set, is checked before each attempt of this request,
	// after the client's own (Options.Budget).
	Budget BudgetCheck
	// Session and Agent name who asks, for the llm/stream hooks.
	Session, Agent string
}

// AssistantMessage is the answer of one finished attempt.
type AssistantMessage struct {
	Text      string
	Reasoning string
	// ReasoningBlocks are the reasoning blocks with their signatures, when
	// the provider streamed any signature (Anthropic): sent back unchanged.
	ReasoningBlocks []sdk.ReasoningBlock
	ToolCalls       []sdk.ToolCall // in block-index order; arguments are valid JSON
	FinishReason    string         // "stop", "tool_calls", "length", ...
	Usage           sdk.Usage
}

// AsMessage returns the message as a conversation entry for the next request.
func (m AssistantMessage) AsMessage() sdk.Message {
	return sdk.Message{Role: sdk.RoleAssistant, Content: m.Text, Reasoning: m.Reasoning, ReasoningBlocks: m.ReasoningBlocks, ToolCalls: m.ToolCalls}
}
