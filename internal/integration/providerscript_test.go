package integration_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"

	script "github.com/harness-agent/harness/plugins/provider-script"
)

// The scripted provider through the core's llm layer (Merge, Assembler,
// Client): a plugin's own tests may not import the core.

func scriptPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "plugins", "provider-script", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func configJSON(t *testing.T, cfg script.Config) []byte {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func user(s string) sdk.Message { return sdk.Message{Role: sdk.RoleUser, Content: s} }

// session is a configured provider behind a real gRPC connection, with a
// handle prepared for its model.
type session struct {
	t      *testing.T
	client *sdk.ProviderClient
	handle sdk.Handle
}

func connect(t *testing.T, cfg script.Config, thinking bool) *session {
	t.Helper()
	ctx := context.Background()
	c := sdktest.ConnectProvider(t, script.New())
	if err := c.Configure(ctx, configJSON(t, cfg)); err != nil {
		t.Fatal(err)
	}
	models, err := c.Models(ctx)
	if err != nil || len(models) != 1 || models[0].ID != script.ModelID || models[0].ContextWindow != 128000 || models[0].Pricing == nil {
		t.Fatalf("models %+v, %v", models, err)
	}
	b, err := llm.Merge(llm.ModelDecl{Name: "scripted", Provider: "offline", ID: script.ModelID, Thinking: &thinking}, models)
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.PrepareCall(ctx, b.PrepareRequest())
	if err != nil {
		t.Fatal(err)
	}
	return &session{t: t, client: c, handle: h}
}

type delta struct {
	block int
	kind  string
	text  string
}

// ask streams one request and assembles it with the core's Assembler.
func (s *session) ask(msgs ...sdk.Message) (llm.AssistantMessage, []delta, error) {
	var deltas []delta
	a := llm.NewAssembler(func(block int, kind, d string) { deltas = append(deltas, delta{block, kind, d}) })
	err := s.client.Stream(context.Background(), s.handle, sdk.StreamRequest{Messages: msgs, ReplayReasoning: true}, a.Add)
	if err != nil {
		return llm.AssistantMessage{}, deltas, err
	}
	m, err := a.Message()
	return m, deltas, err
}

func TestMultiTurnSession(t *testing.T) {
	t.Parallel()
	s := connect(t, script.Config{Script: scriptPath(t, "session.hcl"), ChunkSize: 8}, true)
	conv := []sdk.Message{{Role: sdk.RoleSystem, Content: "You are a careful assistant."}, user("Please summarize README.md.")}

	m1, deltas, err := s.ask(conv...)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.AssistantMessage{
		Reasoning: "The user wants the README summarized. Read it first, and look for TODOs.",
		Text:      "Let me read the README.",
		ToolCalls: []sdk.ToolCall{
			{ID: "call_1_1", Name: "read_file", Arguments: `{"limit":40,"path":"README.md"}`},
			{ID: "call_search", Name: "search_workspace", Arguments: `{"query":"TODO","max_results":5}`},
		},
		FinishReason: "tool_calls",
	}
	got := m1
	got.Usage = sdk.Usage{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("turn 1\n got %+v\nwant %+v", got, want)
	}
	kinds := map[int]string{}
	for _, d := range deltas {
		if len(d.text) > 8 || !utf8.ValidString(d.text) {
			t.Errorf("delta %q is longer than chunk_size or cuts a character", d.text)
		}
		kinds[d.block] = d.kind
	}
	if !reflect.DeepEqual(kinds, map[int]string{0: "reasoning", 1: "text", 2: "tool_call", 3: "tool_call"}) {
		t.Errorf("blocks %v", kinds)
	}
	u := m1.Usage
	if u.PromptTokens == 0 || u.CacheHitTokens != 0 || u.CacheMissTokens != u.PromptTokens || u.ReasoningTokens != 18 || u.CompletionTokens <= u.ReasoningTokens {
		t.Errorf("turn 1 usage %+v", u)
	}

	conv = append(conv, m1.AsMessage(),
		sdk.Message{Role: sdk.RoleTool, ToolCallID: "call_1_1", Content: "# harness\nRun the quickstart."},
		sdk.Message{Role: sdk.RoleTool, ToolCallID: "call_search", Content: "no matches"})
	m2, deltas, err := s.ask(conv...)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Text != "The README explains the quickstart — déjà vu, 日本語 included.\n" || m2.FinishReason != "stop" || len(m2.ToolCalls) != 0 {
		t.Fatalf("turn 2: %+v", m2)
	}
	for _, d := range deltas {
		if !utf8.ValidString(d.text) {
			t.Errorf("delta %q cuts a character", d.text)
		}
	}
	if u := m2.Usage; u.CacheHitTokens < u1Prompt(m1)-1 || u.CacheHitTokens+u.CacheMissTokens != u.PromptTokens {
		t.Errorf("turn 2 usage %+v: the first request's prompt should be a cache hit", u)
	}

	conv = append(conv, m2.AsMessage(), user("Anything else?"))
	if m3, _, err := s.ask(conv...); err != nil || m3.Text != "(script ended)" || m3.FinishReason != "stop" {
		t.Fatalf("after the script: %+v, %v", m3, err)
	}

	// A side conversation matched by a responder, whatever its position.
	m4, _, err := s.ask(user("Summarize the conversation so far: ..."))
	if err != nil || m4.Text != "Summary: README read." || m4.Usage.PromptTokens != 1000 || m4.Usage.CacheHitTokens != 900 || m4.Usage.CacheMissTokens != 100 {
		t.Fatalf("responder: %+v, %v", m4, err)
	}
}

func u1Prompt(m llm.AssistantMessage) int64 { return m.Usage.PromptTokens }

func TestTurnSelectionByAssistantCount(t *testing.T) {
	t.Parallel()
	// A fresh provider (a resumed session) picks the turn from the conversation.
	s := connect(t, script.Config{Script: scriptPath(t, "session.hcl")}, false)
	conv := []sdk.Message{
		user("Please summarize README.md."),
		{Role: sdk.RoleAssistant, Content: "Let me read the README.", ToolCalls: []sdk.ToolCall{{ID: "call_1_1", Name: "read_file", Arguments: "{}"}}},
		{Role: sdk.RoleTool, ToolCallID: "call_1_1", Content: "# harness"},
	}
	for range 2 { // a retried request gets the same turn
		m, _, err := s.ask(conv...)
		if err != nil || !strings.HasPrefix(m.Text, "The README explains") {
			t.Fatalf("got %+v, %v", m, err)
		}
	}
	m, _, err := s.ask(user("Please summarize README.md."))
	if err != nil || m.Reasoning != "" || len(m.ToolCalls) != 2 {
		t.Fatalf("turn 1 without thinking: %+v, %v", m, err)
	}
}

func TestScriptedFailureThroughClient(t *testing.T) {
	t.Parallel()
	s := connect(t, script.Config{Script: scriptPath(t, "flaky.hcl")}, false)
	b := llm.Binding{Name: "scripted", Provider: "offline", Model: sdk.ModelInfo{ID: script.ModelID}}
	var slept []time.Duration
	client := llm.NewClient(func(string) (llm.Streamer, error) { return streamer{s.client}, nil }, llm.Options{
		Sleep: func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil },
	})
	var events []string
	obs := observer{retry: func(attempt int, kind sdk.ErrorKind, d time.Duration) { events = append(events, "retry "+string(kind)) },
		chunk: func(_ int, _, d string) { events = append(events, d) }}
	m, _, err := client.Complete(context.Background(), llm.Request{Bindings: []llm.Binding{b}, Messages: []sdk.Message{user("go")}}, obs)
	if err != nil || m.Text != "Second time lucky." {
		t.Fatalf("got %+v, %v", m, err)
	}
	if want := []string{"Second time ", "retry rate_limited", "Second time ", "lucky."}; !reflect.DeepEqual(events, want) {
		t.Fatalf("events %q, want %q", events, want)
	}
	if len(slept) != 1 || slept[0] != 1500*time.Millisecond {
		t.Fatalf("slept %v, want the script's Retry-After", slept)
	}
}

// streamer is the plugin host's Streamer, reduced to what a test needs.
type streamer struct{ c *sdk.ProviderClient }

func (s streamer) Prepare(ctx context.Context, b llm.Binding) (sdk.Handle, error) {
	return s.c.PrepareCall(ctx, b.PrepareRequest())
}

func (s streamer) Stream(ctx context.Context, h sdk.Handle, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	return s.c.Stream(ctx, h, req, emit)
}

type observer struct {
	retry func(int, sdk.ErrorKind, time.Duration)
	chunk func(int, string, string)
}

func (o observer) OnRetry(a int, k sdk.ErrorKind, d time.Duration) { o.retry(a, k, d) }
func (o observer) OnChunk(b int, k, d string)                      { o.chunk(b, k, d) }
func (o observer) OnUsage(llm.Binding, sdk.Usage, float64)         {}
