package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/harness-agent/harness/sdk"
)

// Request defaults.
const (
	// defaultMaxTokens is max_tokens (which the API requires) when neither
	// the request nor the model metadata says.
	defaultMaxTokens = 8192
	// defaultThinkingBudget is budget_tokens when thinking is on and the
	// model block sets no thinking_budget; minThinkingBudget is the API's
	// floor.
	defaultThinkingBudget = 4096
	minThinkingBudget     = 1024
	// answerTokens is how much room above the thinking budget max_tokens
	// keeps for the answer when the model's own max_output is too small.
	answerTokens = 4096
)

// wireRequest is the body of POST /v1/messages.
type wireRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int64           `json:"max_tokens"`
	System      []*wireBlock    `json:"system,omitempty"`
	Messages    []wireMessage   `json:"messages"`
	Tools       []*wireTool     `json:"tools,omitempty"`
	ToolChoice  *wireToolChoice `json:"tool_choice,omitempty"`
	Thinking    *wireThinking   `json:"thinking,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	Stream      bool            `json:"stream"`
}

type wireMessage struct {
	Role    string       `json:"role"`
	Content []*wireBlock `json:"content"`
}

// wireBlock is one content block; the type says which fields are set.
type wireBlock struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// thinking / redacted_thinking
	Thinking  *string `json:"thinking,omitempty"`
	Signature *string `json:"signature,omitempty"`
	Data      string  `json:"data,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID string       `json:"tool_use_id,omitempty"`
	Content   []*wireBlock `json:"content,omitempty"`
	IsError   bool         `json:"is_error,omitempty"`

	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"` // "ephemeral": the 5-minute cache
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type wireToolChoice struct {
	Type string `json:"type"` // auto, any, tool, none
	Name string `json:"name,omitempty"`
}

type wireThinking struct {
	Type         string `json:"type"` // "enabled"
	BudgetTokens int64  `json:"budget_tokens"`
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest translates an SDK request into a Messages API body, with
// prompt-cache breakpoints placed (see placeBreakpoints).
func buildRequest(req sdk.StreamRequest) wireRequest {
	w := wireRequest{Model: req.Model.ID, Stream: true, MaxTokens: req.MaxOutput}
	if w.MaxTokens <= 0 {
		w.MaxTokens = req.Model.MaxOutput
	}
	if w.MaxTokens <= 0 {
		w.MaxTokens = defaultMaxTokens
	}
	if req.Thinking && unsignedToolTurn(req.Messages) {
		// The API refuses thinking when the turn being continued used tools
		// without a thinking block of its own (it was made with thinking
		// off, or by another provider of a fallback list): this request
		// goes without thinking; the next turn has it again.
		req.Thinking = false
	}
	if req.Thinking {
		budget := req.ThinkingBudget
		if budget <= 0 {
			budget = defaultThinkingBudget
		}
		budget = max(budget, minThinkingBudget)
		if w.MaxTokens <= budget {
			w.MaxTokens = budget + answerTokens
		}
		w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
	} else if req.Temperature != 0 {
		t := req.Temperature // with thinking the API allows only the default
		w.Temperature = &t
	}
	pinned := -1 // index in w.Messages of the last pinned message
	for _, m := range req.Messages {
		switch m.Role {
		case sdk.RoleSystem:
			if m.Content != "" {
				w.System = append(w.System, &wireBlock{Type: "text", Text: m.Content})
			}
			continue
		case sdk.RoleAssistant:
			w.add("assistant", assistantBlocks(m, req.Thinking))
		case sdk.RoleTool:
			w.add("user", []*wireBlock{toolResult(m)})
		default:
			if strings.TrimSpace(m.Content) != "" {
				w.add("user", []*wireBlock{{Type: "text", Text: m.Content}})
			}
		}
		if m.Pinned && len(w.Messages) > 0 {
			pinned = len(w.Messages) - 1
		}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 {
			schema = emptyObjectSchema
		}
		w.Tools = append(w.Tools, &wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if len(w.Tools) > 0 {
		w.ToolChoice = toolChoice(req.ToolChoice, req.Thinking)
	}
	w.placeBreakpoints(pinned)
	return w
}

// unsignedToolTurn reports whether the last assistant message made tool
// calls without a signed reasoning block.
func unsignedToolTurn(msgs []sdk.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != sdk.RoleAssistant {
			continue
		}
		if len(m.ToolCalls) == 0 {
			return false
		}
		for _, rb := range m.ReasoningBlocks {
			if rb.Signature != "" {
				return false
			}
		}
		return true
	}
	return false
}

// add appends blocks as a turn of role, merged into the previous turn when
// that has the same role: the API wants user and assistant to alternate,
// and all tool results of one assistant turn in one user turn.
func (w *wireRequest) add(role string, blocks []*wireBlock) {
	if len(blocks) == 0 {
		return
	}
	if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
		w.Messages[n-1].Content = append(w.Messages[n-1].Content, blocks...)
		return
	}
	w.Messages = append(w.Messages, wireMessage{Role: role, Content: blocks})
}

// assistantBlocks are an assistant turn's blocks: its signed reasoning
// blocks (in thinking mode, which needs them back unchanged), its text and
// its tool calls. Reasoning without a signature (another provider's) is
// not sent: the API would refuse it.
func assistantBlocks(m sdk.Message, thinking bool) []*wireBlock {
	var out []*wireBlock
	if thinking {
		for _, rb := range m.ReasoningBlocks {
			switch {
			case rb.Redacted:
				out = append(out, &wireBlock{Type: "redacted_thinking", Data: rb.Signature})
			case rb.Signature != "":
				text, sig := rb.Text, rb.Signature
				out = append(out, &wireBlock{Type: "thinking", Thinking: &text, Signature: &sig})
			}
		}
	}
	if strings.TrimSpace(m.Content) != "" {
		out = append(out, &wireBlock{Type: "text", Text: m.Content})
	}
	for _, tc := range m.ToolCalls {
		input := json.RawMessage(strings.TrimSpace(tc.Arguments))
		if len(input) == 0 || !json.Valid(input) {
			input = json.RawMessage("{}")
		}
		out = append(out, &wireBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
	}
	return out
}

func toolResult(m sdk.Message) *wireBlock {
	content := m.Content
	if strings.TrimSpace(content) == "" {
		content = "(no output)" // the API refuses empty text blocks
	}
	return &wireBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: []*wireBlock{{Type: "text", Text: content}}, IsError: m.IsError}
}

// toolChoice maps the SDK's choice. With thinking on the API accepts only
// auto and none, so a forced choice becomes auto.
func toolChoice(choice string, thinking bool) *wireToolChoice {
	switch choice {
	case "", "auto":
		return &wireToolChoice{Type: "auto"}
	case "none":
		return &wireToolChoice{Type: "none"}
	}
	if thinking {
		return &wireToolChoice{Type: "auto"}
	}
	if choice == "required" {
		return &wireToolChoice{Type: "any"}
	}
	return &wireToolChoice{Type: "tool", Name: choice}
}

// placeBreakpoints marks up to four cache_control breakpoints. The API's
// prefix order is tools → system → messages, so one breakpoint after the
// system prompt (after the last tool when there is none) caches both. Then
// the end of the pinned head (the task); the end of the previous request's
// prompt (the turn before the newest assistant message), which is exactly
// where that request wrote, so it is read even when a turn of many
// parallel tool calls adds more blocks than the API looks back (20) from
// a breakpoint; and the newest message, which writes this turn's prefix
// for the next.
func (w *wireRequest) placeBreakpoints(pinned int) {
	switch {
	case len(w.System) > 0:
		w.System[len(w.System)-1].CacheControl = ephemeral()
	case len(w.Tools) > 0:
		w.Tools[len(w.Tools)-1].CacheControl = ephemeral()
	}
	last := len(w.Messages) - 1
	previous := -1
	for i := last; i >= 0; i-- {
		if w.Messages[i].Role == "assistant" {
			previous = i - 1
			break
		}
	}
	for _, i := range []int{pinned, previous, last} {
		if i < 0 {
			continue
		}
		if b := lastCacheable(w.Messages[i].Content); b != nil && b.CacheControl == nil {
			b.CacheControl = ephemeral()
		}
	}
}

func ephemeral() *cacheControl { return &cacheControl{Type: "ephemeral"} }

// lastCacheable is the last block that may carry cache_control (thinking
// blocks may not).
func lastCacheable(blocks []*wireBlock) *wireBlock {
	for i := len(blocks) - 1; i >= 0; i-- {
		if t := blocks[i].Type; t != "thinking" && t != "redacted_thinking" {
			return blocks[i]
		}
	}
	return nil
}
