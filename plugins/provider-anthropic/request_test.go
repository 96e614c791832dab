package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func conversation() []sdk.Message {
	return []sdk.Message{
		{Role: sdk.RoleSystem, Content: "You are careful.", Pinned: true},
		{Role: sdk.RoleUser, Content: "Fix the bug.", Pinned: true},
		{Role: sdk.RoleAssistant, Content: "Looking.", Reasoning: "plan", ReasoningBlocks: []sdk.ReasoningBlock{{Text: "plan", Signature: "SIG"}, {Signature: "ENC", Redacted: true}},
			ToolCalls: []sdk.ToolCall{{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "toolu_2", Name: "terminal", Arguments: ""}}},
		{Role: sdk.RoleTool, ToolCallID: "toolu_1", Content: "contents"},
		{Role: sdk.RoleTool, ToolCallID: "toolu_2", Content: "", IsError: true},
		{Role: sdk.RoleUser, Content: "[Update] approved"},
	}
}

func marshalled(t *testing.T, w wireRequest) string {
	t.Helper()
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBuildRequestShape(t *testing.T) {
	t.Parallel()
	req := sdk.StreamRequest{Model: sdk.ModelInfo{ID: "claude-sonnet-4-5", MaxOutput: 64000}, Thinking: true, ThinkingBudget: 2000,
		Messages: conversation(), Temperature: 0.3, ToolChoice: "required",
		Tools: []sdk.ToolDefinition{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "terminal"}}}
	w := buildRequest(req)
	if len(w.System) != 1 || w.System[0].Text != "You are careful." {
		t.Errorf("system %+v", w.System)
	}
	if len(w.Messages) != 3 || w.Messages[0].Role != "user" || w.Messages[1].Role != "assistant" || w.Messages[2].Role != "user" {
		t.Fatalf("turns %s", marshalled(t, w))
	}
	a := w.Messages[1].Content
	if len(a) != 5 || a[0].Type != "thinking" || *a[0].Thinking != "plan" || *a[0].Signature != "SIG" || a[1].Type != "redacted_thinking" || a[1].Data != "ENC" ||
		a[2].Text != "Looking." || a[3].Type != "tool_use" || string(a[4].Input) != "{}" {
		t.Errorf("assistant blocks %s", marshalled(t, w))
	}
	u := w.Messages[2].Content
	if len(u) != 3 || u[0].ToolUseID != "toolu_1" || u[1].ToolUseID != "toolu_2" || u[1].Content[0].Text != "(no output)" || u[0].IsError || !u[1].IsError || u[2].Type != "text" {
		t.Errorf("results and the update share one user turn: %s", marshalled(t, w))
	}
	if w.Thinking == nil || w.Thinking.BudgetTokens != 2000 || w.MaxTokens != 64000 || w.Temperature != nil || w.ToolChoice.Type != "auto" {
		t.Errorf("thinking %+v max %d temperature %v choice %+v", w.Thinking, w.MaxTokens, w.Temperature, w.ToolChoice)
	}
	if string(w.Tools[1].InputSchema) != `{"type":"object","properties":{}}` {
		t.Errorf("a tool without parameters: %s", w.Tools[1].InputSchema)
	}
	body := marshalled(t, w)
	if n := strings.Count(body, `"cache_control"`); n != 3 {
		t.Errorf("%d breakpoints, want 3: %s", n, body)
	}
	// System (which caches the tools before it), the task (pinned, also
	// the end of the previous request), the newest message.
	if w.Tools[1].CacheControl != nil || w.System[0].CacheControl == nil || w.Messages[0].Content[0].CacheControl == nil || u[2].CacheControl == nil {
		t.Errorf("breakpoints misplaced: %s", body)
	}
}

// TestFourBreakpointsInALongConversation: system, task, the end of the
// previous request and the newest message; never more than the API's 4.
func TestFourBreakpointsInALongConversation(t *testing.T) {
	t.Parallel()
	msgs := conversation()
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("toolu_x%d", i)
		msgs = append(msgs, sdk.Message{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: id, Name: "read_file", Arguments: "{}"}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: id, Content: "r"})
	}
	w := buildRequest(sdk.StreamRequest{Model: sdk.ModelInfo{ID: "m"}, Messages: msgs, Tools: []sdk.ToolDefinition{{Name: "read_file"}}})
	body := marshalled(t, w)
	if n := strings.Count(body, `"cache_control"`); n != 4 {
		t.Fatalf("%d breakpoints, want 4: %s", n, body)
	}
	n := len(w.Messages)
	if w.Messages[n-3].Content[0].CacheControl == nil || w.Messages[n-1].Content[0].CacheControl == nil {
		t.Errorf("the previous request's end and the newest message carry no breakpoint: %s", body)
	}
	w = buildRequest(sdk.StreamRequest{Model: sdk.ModelInfo{ID: "m"}, Messages: msgs[1:], Tools: []sdk.ToolDefinition{{Name: "read_file"}}})
	if w.Tools[0].CacheControl == nil {
		t.Errorf("without a system prompt the last tool carries the first breakpoint: %s", marshalled(t, w))
	}
}

func TestBuildRequestWithoutThinking(t *testing.T) {
	t.Parallel()
	req := sdk.StreamRequest{Model: sdk.ModelInfo{ID: "claude-haiku-4-5"}, Messages: conversation(), Temperature: 0.3, ToolChoice: "read_file",
		Tools: []sdk.ToolDefinition{{Name: "read_file"}}}
	w := buildRequest(req)
	if w.Thinking != nil || w.Temperature == nil || *w.Temperature != 0.3 || w.MaxTokens != defaultMaxTokens {
		t.Errorf("thinking %+v temperature %v max %d", w.Thinking, w.Temperature, w.MaxTokens)
	}
	if w.ToolChoice.Type != "tool" || w.ToolChoice.Name != "read_file" {
		t.Errorf("tool choice %+v", w.ToolChoice)
	}
	for _, b := range w.Messages[1].Content {
		if strings.Contains(b.Type, "thinking") {
			t.Errorf("thinking blocks sent without thinking: %s", marshalled(t, w))
		}
	}
}

func TestBreakpointsOnAFirstTurn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  sdk.StreamRequest
		want int
	}{
		{"task only", sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi", Pinned: true}}}, 1},
		{"system and task", sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleSystem, Content: "s", Pinned: true}, {Role: sdk.RoleUser, Content: "hi", Pinned: true}}}, 2},
		{"nothing pinned", sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "a"}, {Role: sdk.RoleAssistant, Content: "b"}, {Role: sdk.RoleUser, Content: "c"}}}, 2},
		{"thinking last", sdk.StreamRequest{Thinking: true, Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "a", Pinned: true},
			{Role: sdk.RoleAssistant, ReasoningBlocks: []sdk.ReasoningBlock{{Text: "t", Signature: "s"}}}}}, 1},
	}
	for _, tt := range tests {
		tt.req.Model = sdk.ModelInfo{ID: "m"}
		body := marshalled(t, buildRequest(tt.req))
		if n := strings.Count(body, `"cache_control"`); n != tt.want {
			t.Errorf("%s: %d breakpoints, want %d: %s", tt.name, n, tt.want, body)
		}
		if strings.Contains(body, `"thinking","thinking":"t","signature":"s","cache_control"`) {
			t.Errorf("%s: a breakpoint on a thinking block: %s", tt.name, body)
		}
	}
}

func TestThinkingBudgetFitsMaxTokens(t *testing.T) {
	t.Parallel()
	w := buildRequest(sdk.StreamRequest{Model: sdk.ModelInfo{ID: "m", MaxOutput: 4000}, Thinking: true, ThinkingBudget: 8000,
		Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "x"}}})
	if w.Thinking.BudgetTokens != 8000 || w.MaxTokens <= 8000 {
		t.Errorf("budget %d, max_tokens %d", w.Thinking.BudgetTokens, w.MaxTokens)
	}
	w = buildRequest(sdk.StreamRequest{Model: sdk.ModelInfo{ID: "m"}, Thinking: true, ThinkingBudget: 10, Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "x"}}})
	if w.Thinking.BudgetTokens != minThinkingBudget {
		t.Errorf("budget %d, want the API's minimum", w.Thinking.BudgetTokens)
	}
}

func TestBaseURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                      "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/":            "https://api.anthropic.com/v1/messages",
		"https://proxy.example/anthropic/v1":    "https://proxy.example/anthropic/v1/messages",
		"http://localhost:8080/v1/messages/":    "http://localhost:8080/v1/messages",
		"https://user:secret@gw.example/claude": "https://user:secret@gw.example/claude/v1/messages",
	} {
		c, err := parseConfig(json.RawMessage(`{"base_url":` + strings.TrimSpace(string(mustJSON(in))) + `}`))
		if err != nil || c.messages != want {
			t.Errorf("base_url %q: %v %v, want %s", in, c, err, want)
		}
		if c != nil && strings.Contains(c.shown, "secret") {
			t.Errorf("the shown endpoint keeps the password: %s", c.shown)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestThinkingPausesForAnUnsignedToolTurn: continuing a tool turn that has
// no thinking block of its own (made with thinking off, or by another
// provider) goes without thinking, as the API requires.
func TestThinkingPausesForAnUnsignedToolTurn(t *testing.T) {
	t.Parallel()
	msgs := []sdk.Message{
		{Role: sdk.RoleUser, Content: "go", Pinned: true},
		{Role: sdk.RoleAssistant, Reasoning: "DeepSeek reasoning", ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "read_file", Arguments: "{}"}}},
		{Role: sdk.RoleTool, ToolCallID: "c1", Content: "x"},
	}
	w := buildRequest(sdk.StreamRequest{Model: sdk.ModelInfo{ID: "m"}, Thinking: true, Temperature: 0.5, Messages: msgs})
	if w.Thinking != nil || w.Temperature == nil {
		t.Errorf("thinking %+v temperature %v: want thinking off for this request", w.Thinking, w.Temperature)
	}
	msgs[1].ReasoningBlocks = []sdk.ReasoningBlock{{Text: "t", Signature: "s"}}
	if w := buildRequest(sdk.StreamRequest{Model: sdk.ModelInfo{ID: "m"}, Thinking: true, Messages: msgs}); w.Thinking == nil {
		t.Error("a signed tool turn must keep thinking on")
	}
	done := append(msgs[:len(msgs):len(msgs)], sdk.Message{Role: sdk.RoleAssistant, Content: "done"}, sdk.Message{Role: sdk.RoleUser, Content: "more"})
	done[1].ReasoningBlocks = nil
	if w := buildRequest(sdk.StreamRequest{Model: sdk.ModelInfo{ID: "m"}, Thinking: true, Messages: done}); w.Thinking == nil {
		t.Error("a finished tool loop must not turn thinking off")
	}
}
