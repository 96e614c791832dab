package deepseek_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// body returns the JSON body of the only request srv received.
func body(t *testing.T, srv *fakedeepseek.Server) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if reqs[0].Body == nil {
		t.Fatalf("request body is not JSON: %s", reqs[0].Raw)
	}
	return reqs[0].Body
}

// reencode turns a decoded JSON value back into compact JSON for
// comparison with a literal.
func reencode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func okTurn() fakedeepseek.Response { return fakedeepseek.Scripted(fakedeepseek.Turn{Text: "ok"}) }

func TestEndpointAndHeaders(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/", "/v1", "/v1/", "/v1/chat/completions"} {
		t.Run("base_url"+suffix, func(t *testing.T) {
			t.Parallel()
			srv := fakedeepseek.New(t, okTurn())
			client := sdktest.ConnectProvider(t, deepseek.New())
			cfg, _ := json.Marshal(map[string]any{"api_key": testKey, "base_url": srv.URL + suffix, "headers": map[string]string{"X-Team": "research"}})
			if err := client.Configure(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			h, _ := client.PrepareCall(context.Background(), sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "deepseek-v4-flash"}})
			if got := (provider{client: client, handle: h}).stream(t, userRequest("hi")); got.Err != nil || got.Text != "ok" {
				t.Fatalf("got %v", got)
			}
			req := srv.Requests()[0]
			wantPath := "/chat/completions"
			if strings.HasPrefix(suffix, "/v1") {
				wantPath = "/v1/chat/completions"
			}
			if req.Method != "POST" || req.Path != wantPath {
				t.Errorf("%s %s, want POST %s", req.Method, req.Path, wantPath)
			}
			for k, want := range map[string]string{"Authorization": "Bearer " + testKey, "X-Team": "research",
				"Content-Type": "application/json", "Accept": "text/event-stream"} {
				if got := req.Header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	t.Parallel()
	weather := sdk.ToolDefinition{Name: "weather", Description: "Weather for a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}
	conversation := []sdk.Message{
		{Role: sdk.RoleSystem, Content: "Be brief."},
		{Role: sdk.RoleUser, Content: "Weather in Paris and Rome?"},
		{Role: sdk.RoleAssistant, Reasoning: "Two cities, two calls.", ToolCalls: []sdk.ToolCall{
			{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`},
			{ID: "call_2", Name: "weather", Arguments: `{"city":"Rome"}`},
		}},
		{Role: sdk.RoleTool, ToolCallID: "call_1", Content: "sunny"},
		{Role: sdk.RoleTool, ToolCallID: "call_2", Content: "rain"},
		{Role: sdk.RoleAssistant, Content: "Sunny in Paris, rain in Rome.", Reasoning: "not sent: no tool calls"},
		{Role: sdk.RoleUser, Content: "And Oslo?"},
		{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: "call_3", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
		{Role: sdk.RoleTool, ToolCallID: "call_3", Content: "snow"},
	}
	const (
		system   = `{"role":"system","content":"Be brief."}`
		user1    = `{"role":"user","content":"Weather in Paris and Rome?"}`
		calls12  = `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]`
		results  = `{"content":"sunny","role":"tool","tool_call_id":"call_1"},{"content":"rain","role":"tool","tool_call_id":"call_2"}`
		answer   = `{"content":"Sunny in Paris, rain in Rome.","role":"assistant"}`
		user2    = `{"content":"And Oslo?","role":"user"}`
		call3    = `"tool_calls":[{"function":{"arguments":"{\"city\":\"Oslo\"}","name":"weather"},"id":"call_3","type":"function"}]`
		result3  = `{"content":"snow","role":"tool","tool_call_id":"call_3"}`
		toolJSON = `[{"function":{"description":"Weather for a city.","name":"weather","parameters":{"properties":{"city":{"type":"string"}},"type":"object"}},"type":"function"}]`
	)
	tests := []struct {
		name                 string
		model                string
		thinking, replay     bool
		choice               string
		maxOutput            int64
		temperature          float64
		wantThinking         any // nil: absent
		wantChoice           any
		wantReasoningReplay  bool // the non-empty reasoning of the first tool turn
		wantEmptyReplay      bool // the empty reasoning of the second one
		wantTemperature      any
		wantMaxTokens        any
		wantNoToolsNoChoices bool
	}{
		{name: "v4 thinking, forced tool downgraded", model: "deepseek-v4-flash", thinking: true, replay: true, choice: "weather",
			wantThinking: map[string]any{"type": "enabled"}, wantChoice: "auto", wantReasoningReplay: true, wantEmptyReplay: true,
			maxOutput: 4096, wantMaxTokens: 4096.0, temperature: 0.7},
		{name: "v4 thinking, required downgraded", model: "deepseek-v4-pro", thinking: true, replay: true, choice: "required",
			wantThinking: map[string]any{"type": "enabled"}, wantChoice: "auto", wantReasoningReplay: true, wantEmptyReplay: true},
		{name: "v4 no thinking, named tool kept", model: "deepseek-flash", choice: "weather", temperature: 0.2,
			wantThinking: map[string]any{"type": "disabled"}, wantChoice: map[string]any{"type": "function", "function": map[string]any{"name": "weather"}}, wantTemperature: 0.2},
		{name: "v4 thinking without replay", model: "deepseek-v4-flash", thinking: true, choice: "none",
			wantThinking: map[string]any{"type": "enabled"}, wantChoice: "none"},
		{name: "deepseek-reasoner: mode fixed by name", model: "deepseek-reasoner", replay: true, choice: "required",
			wantChoice: "auto", wantReasoningReplay: true, wantEmptyReplay: true},
		{name: "v4 no thinking with replay: only reasoning that exists", model: "deepseek-v4-flash", replay: true,
			wantThinking: map[string]any{"type": "disabled"}, wantChoice: "auto", wantReasoningReplay: true},
		{name: "deepseek-chat: mode fixed by name", model: "deepseek-chat", thinking: true, choice: "required", wantChoice: "required"},
		{name: "foreign model, thinking off: no thinking field", model: "qwen-plus", choice: "auto", wantChoice: "auto"},
		{name: "foreign model, thinking on", model: "qwen-plus", thinking: true, wantThinking: map[string]any{"type": "enabled"}, wantChoice: "auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakedeepseek.New(t, okTurn())
			client := sdktest.ConnectProvider(t, deepseek.New())
			if err := client.Configure(context.Background(), config(srv, nil)); err != nil {
				t.Fatal(err)
			}
			h, err := client.PrepareCall(context.Background(), sdk.PrepareRequest{Model: sdk.ModelInfo{ID: tt.model}, Thinking: tt.thinking, ReplayReasoning: tt.replay})
			if err != nil {
				t.Fatal(err)
			}
			req := sdk.StreamRequest{Messages: conversation, Tools: []sdk.ToolDefinition{weather}, ToolChoice: tt.choice, MaxOutput: tt.maxOutput, Temperature: tt.temperature}
			if got := (provider{client: client, handle: h}).stream(t, req); got.Err != nil {
				t.Fatal(got.Err)
			}
			b := body(t, srv)
			if b["model"] != tt.model || b["stream"] != true || reencode(t, b["stream_options"]) != `{"include_usage":true}` {
				t.Errorf("model/stream/stream_options: %v %v %v", b["model"], b["stream"], b["stream_options"])
			}
			if diff := cmp.Diff(tt.wantThinking, b["thinking"]); diff != "" {
				t.Errorf("thinking (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantChoice, b["tool_choice"]); diff != "" {
				t.Errorf("tool_choice (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTemperature, b["temperature"]); diff != "" {
				t.Errorf("temperature (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMaxTokens, b["max_tokens"]); diff != "" {
				t.Errorf("max_tokens (-want +got):\n%s", diff)
			}
			if got := reencode(t, b["tools"]); got != canonical(t, toolJSON) {
				t.Errorf("tools %s\nwant %s", got, toolJSON)
			}
			msgs := b["messages"].([]any)
			if len(msgs) != len(conversation) {
				t.Fatalf("%d messages, want %d", len(msgs), len(conversation))
			}
			turn := func(reasoning string, replay bool, calls string) string {
				s := `{"content":null,`
				if replay {
					s += `"reasoning_content":` + reasoning + `,`
				}
				return s + `"role":"assistant",` + calls + `}`
			}
			got := reencode(t, msgs)
			want := canonical(t, "["+system+","+user1+","+turn(`"Two cities, two calls."`, tt.wantReasoningReplay, calls12)+","+results+","+
				answer+","+user2+","+turn(`""`, tt.wantEmptyReplay, call3)+","+result3+"]")
			if got != want {
				t.Errorf("messages\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestScriptedConversation drives a two-request tool loop through the fake
// and checks what the second request carries back, and the prefix-cache
// usage the fake reports for it.
func TestScriptedConversation(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{Reasoning: "I should look.", ToolCalls: []fakedeepseek.ToolCall{{Name: "read_file", Arguments: `{"path":"go.mod"}`}}}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "It is a Go module."}),
	)
	client := sdktest.ConnectProvider(t, deepseek.New())
	if err := client.Configure(context.Background(), config(srv, nil)); err != nil {
		t.Fatal(err)
	}
	h, _ := client.PrepareCall(context.Background(), sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "deepseek-v4-flash"}, Thinking: true, ReplayReasoning: true})
	p := provider{client: client, handle: h}
	msgs := []sdk.Message{
		{Role: sdk.RoleSystem, Content: strings.Repeat("You are a careful Go reviewer. ", 100)},
		{Role: sdk.RoleUser, Content: "What is in go.mod?"},
	}
	first := p.stream(t, sdk.StreamRequest{Messages: msgs})
	if first.Err != nil || first.Finish != "tool_calls" || len(first.Calls) != 1 || first.Reasoning != "I should look." {
		t.Fatalf("first turn %v", first)
	}
	call := first.Calls[0]
	if call.Name != "read_file" || call.Arguments != `{"path":"go.mod"}` || !strings.HasPrefix(call.ID, "call_00_") {
		t.Fatalf("call %+v", call)
	}
	msgs = append(msgs, sdk.Message{Role: sdk.RoleAssistant, Reasoning: first.Reasoning, ToolCalls: first.Calls},
		sdk.Message{Role: sdk.RoleTool, ToolCallID: call.ID, Content: "module example.com/x"})
	second := p.stream(t, sdk.StreamRequest{Messages: msgs})
	if second.Err != nil || second.Text != "It is a Go module." || second.Finish != "stop" {
		t.Fatalf("second turn %v", second)
	}
	reqs := srv.Requests()
	replayed := reqs[1].Body["messages"].([]any)[2].(map[string]any)
	if replayed["reasoning_content"] != "I should look." || reencode(t, replayed["tool_calls"]) == "null" {
		t.Errorf("the tool-call turn was not sent back with its reasoning: %v", replayed)
	}
	// The first request had nothing to share; the second shares the first
	// prompt (system prompt and question) up to its closing bracket.
	if first.Usage.CacheHitTokens != 0 || first.Usage.CacheMissTokens != first.Usage.PromptTokens {
		t.Errorf("first usage %+v: nothing can be cached yet", first.Usage)
	}
	if u := second.Usage; u.CacheHitTokens == 0 || u.CacheHitTokens%64 != 0 || u.CacheHitTokens+u.CacheMissTokens != u.PromptTokens {
		t.Errorf("second usage %+v: want a hit in whole 64-token units", u)
	}
}

// canonical re-encodes JSON text with sorted keys, as reencode does.
func canonical(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in the test: %v\n%s", err, s)
	}
	return reencode(t, v)
}
