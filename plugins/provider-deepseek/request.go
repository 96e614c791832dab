package deepseek

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

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
	w, thinking := buildHead(headOf(req))
	for _, m := range req.Messages {
		w.Messages = append(w.Messages, buildMessage(m, req.ReplayReasoning, thinking))
	}
	return w
}

// head is what the body has of a request besides its messages.
type head struct {
	model       string
	thinking    bool
	temperature float64
	maxOutput   int64
	toolChoice  string
	tools       []sdk.ToolDefinition
}

func headOf(req sdk.StreamRequest) head {
	return head{model: req.Model.ID, thinking: req.Thinking, temperature: req.Temperature, maxOutput: req.MaxOutput,
		toolChoice: req.ToolChoice, tools: req.Tools}
}

func (h head) equal(o head) bool {
	return h.model == o.model && h.thinking == o.thinking && h.temperature == o.temperature && h.maxOutput == o.maxOutput &&
		h.toolChoice == o.toolChoice && slices.EqualFunc(h.tools, o.tools, func(a, b sdk.ToolDefinition) bool {
		return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
	})
}

// clone is h with tools of its own: the caller may reuse its slices.
func (h head) clone() head {
	h.tools = slices.Clone(h.tools)
	for i := range h.tools {
		h.tools[i].Parameters = bytes.Clone(h.tools[i].Parameters)
	}
	return h
}

// buildHead translates all of a request but its messages, and says
// whether it is in thinking mode.
func buildHead(req head) (wireRequest, bool) {
	mode := thinkingModeOf(req.model)
	thinking := req.thinking
	switch mode {
	case thinkingFixedOff:
		thinking = false
	case thinkingFixedOn:
		thinking = true
	}
	w := wireRequest{
		Model:         req.model,
		Stream:        true,
		StreamOptions: wireStreamOptions{IncludeUsage: true},
		MaxTokens:     req.maxOutput,
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
	if req.temperature != 0 && !thinking {
		t := req.temperature
		w.Temperature = &t
	}
	for _, t := range req.tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyObjectSchema
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if len(w.Tools) > 0 {
		w.ToolChoice = toolChoice(req.toolChoice, thinking)
	}
	return w, thinking
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

// bodyCache encodes request bodies, reusing what is unchanged since the
// previous request: the encoding of everything but the messages when the
// head is the same, and the encodings of the messages that are unchanged
// (compared by position: a conversation mostly grows at its end), so a
// turn of a long session encodes only its new messages. The body is byte
// for byte json.Marshal(buildRequest(req)).
type bodyCache struct {
	mu       sync.Mutex
	head     head   // what rest encodes, its slices copied; valid when rest is not nil
	rest     []byte // {"model":…,"messages":null,…}
	split    int    // where ,"messages":null starts in rest
	thinking bool   // the head's thinking mode

	replay, thinkingMsgs bool          // what encs were built with
	msgs                 []sdk.Message // what encs encode, their slices copied
	encs                 [][]byte
}

const nullMessages = `,"messages":null`

// encode returns the body of req.
func (c *bodyCache) encode(req sdk.StreamRequest) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := headOf(req); c.rest == nil || !c.head.equal(h) {
		c.rest = nil
		w, thinking := buildHead(h)
		rest, err := json.Marshal(w)
		if err != nil {
			return nil, err
		}
		model, err := json.Marshal(w.Model)
		if err != nil {
			return nil, err
		}
		split := len(`{"model":`) + len(model)
		if !bytes.HasPrefix(rest[split:], []byte(nullMessages)) { // not the layout of wireRequest
			return json.Marshal(buildRequest(req))
		}
		c.head, c.rest, c.split, c.thinking = h.clone(), rest, split, thinking
	}
	rest, split := c.rest, c.split
	encs, err := c.messages(req.Messages, req.ReplayReasoning, c.thinking)
	if err != nil {
		return nil, err
	}
	n := len(rest) + len(encs) + 1
	for _, e := range encs {
		n += len(e)
	}
	body := make([]byte, 0, n)
	body = append(body, rest[:split]...)
	if len(encs) == 0 {
		body = append(body, nullMessages...)
	} else {
		body = append(body, `,"messages":[`...)
		for i, e := range encs {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, e...)
		}
		body = append(body, ']')
	}
	return append(body, rest[split+len(nullMessages):]...), nil
}

// messages returns the encodings of msgs, updating the cache.
func (c *bodyCache) messages(msgs []sdk.Message, replay, thinking bool) ([][]byte, error) {
	if replay != c.replay || thinking != c.thinkingMsgs {
		c.msgs, c.encs = c.msgs[:0], c.encs[:0]
		c.replay, c.thinkingMsgs = replay, thinking
	}
	if len(c.msgs) > len(msgs) {
		c.msgs, c.encs = c.msgs[:len(msgs)], c.encs[:len(msgs)]
	}
	for i, m := range msgs {
		if i < len(c.msgs) && sdk.SameMessage(c.msgs[i], m) {
			continue
		}
		enc, err := json.Marshal(buildMessage(m, replay, thinking))
		if err != nil {
			c.msgs, c.encs = c.msgs[:min(i, len(c.msgs))], c.encs[:min(i, len(c.encs))]
			return nil, err
		}
		m.ToolCalls, m.ReasoningBlocks = slices.Clone(m.ToolCalls), slices.Clone(m.ReasoningBlocks)
		if i < len(c.msgs) {
			c.msgs[i], c.encs[i] = m, enc
		} else {
			c.msgs, c.encs = append(c.msgs, m), append(c.encs, enc)
		}
	}
	return c.encs, nil
}
