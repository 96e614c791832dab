package deepseek

import (
	"encoding/json"

	"github.com/harness-agent/harness/sdk"
)

// wireRequest is the body of POST /chat/completions.
type wireRequest struct {
	Model         string            `json:"model"`
	Messages      []wireMessage     `json:"messages"`
	Stream        bool              `json:"stream"`
	StreamOptions wireStreamOptions `json:"stream_options"`
	Tools         []wireTool        `json:"tools,omitempty"`
	ToolChoice    any               `json:"tool_choice,omitempty"`
	Thinking      *wireThinking     `json:"thinking,omitempty"`
	MaxTokens     int64             `json:"max_tokens,omitempty"`
	Temperature   *float64          `json:"temperature,omitempty"`
}

type wireStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireThinking struct {
	Type string `json:"type"` // "enabled" or "disabled"
}

// wireMessage is one chat message. Content is a pointer so that an
// assistant turn made only of tool calls says "content": null, and
// ReasoningContent is a pointer so that a replayed empty reasoning is sent
// as "" (DeepSeek answers 400 when a tool-call turn lacks the field).
type wireMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function wireFunctionCall `json:"function"`
}

type wireFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type wireNamedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest translates an SDK request into DeepSeek's chat completions
// body.
func buildRequest(req sdk.StreamRequest) wireRequest {
	mode := thinkingModeOf(req.Model.ID)
	thinking := req.Thinking
	switch mode {
	case thinkingFixedOff:
		thinking = false
	case thinkingFixedOn:
		thinking = true
	}
	w := wireRequest{
		Model:         req.Model.ID,
		Stream:        true,
		StreamOptions: wireStreamOptions{IncludeUsage: true},
		MaxTokens:     req.MaxOutput,
	}
	switch {
	case mode == thinkingToggle && thinking:
		w.Thinking = &wireThinking{Type: "enabled"}
	case mode == thinkingToggle:
		w.Thinking = &wireThinking{Type: "disabled"}
	case mode == thinkingForeign && thinking:
		w.Thinking = &wireThinking{Type: "enabled"}
	}
	// Thinking mode ignores temperature; 0 means the caller left it unset.
	if req.Temperature != 0 && !thinking {
		t := req.Temperature
		w.Temperature = &t
	}
	for _, m := range req.Messages {
		w.Messages = append(w.Messages, buildMessage(m, req.ReplayReasoning, thinking))
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyObjectSchema
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if len(w.Tools) > 0 {
		w.ToolChoice = toolChoice(req.ToolChoice, thinking)
	}
	return w
}

// buildMessage translates one message. The reasoning of a tool-call turn
// is replayed when the model wants it; an empty one only in thinking mode,
// where DeepSeek needs the field present (other servers never see it).
func buildMessage(m sdk.Message, replayReasoning, thinking bool) wireMessage {
	content := m.Content
	w := wireMessage{Role: string(m.Role), Content: &content, ToolCallID: m.ToolCallID}
	if m.Role != sdk.RoleAssistant || len(m.ToolCalls) == 0 {
		return w
	}
	if content == "" {
		w.Content = nil
	}
	if replayReasoning && (thinking || m.Reasoning != "") {
		reasoning := m.Reasoning
		w.ReasoningContent = &reasoning
	}
	for _, tc := range m.ToolCalls {
		args := tc.Arguments
		if args == "" {
			args = "{}"
		}
		w.ToolCalls = append(w.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: wireFunctionCall{Name: tc.Name, Arguments: args}})
	}
	return w
}

// toolChoice maps the SDK's choice to the wire value. DeepSeek refuses a
// forced choice in thinking mode, so "required" and a named tool become
// "auto" there.
func toolChoice(choice string, thinking bool) any {
	switch choice {
	case "", "auto":
		return "auto"
	case "none":
		return "none"
	}
	if thinking {
		return "auto"
	}
	if choice == "required" {
		return "required"
	}
	named := wireNamedToolChoice{Type: "function"}
	named.Function.Name = choice
	return named
}
