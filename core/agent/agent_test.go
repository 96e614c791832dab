package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

func ev(seq int64, typ string, data any) session.Event {
	b, _ := json.Marshal(data)
	return session.Event{Seq: seq, Time: time.Unix(seq, 0), Session: "s", Type: typ, Data: b}
}

func call(id, name, args string) map[string]any {
	return map[string]any{"id": id, "name": name, "arguments": json.RawMessage(args)}
}

func TestRebuild(t *testing.T) {
	t.Parallel()
	events := []session.Event{
		ev(1, event.TypeSessionStarted, map[string]any{"agent": "a", "task": "do it"}),
		ev(2, "llm.request", map[string]any{}),
		ev(3, "assistant.chunk", map[string]any{"delta": "never used"}),
		ev(4, event.TypeAssistantMessage, map[string]any{"content": "looking", "reasoning": "r1", "tool_calls": []any{call("c1", "read_file", `{"path":"a"}`), call("c2", "terminal", `{"command":"ls"}`)},
			"reasoning_blocks": []sdk.ReasoningBlock{{Text: "r1", Signature: "EqSig+/="}, {Signature: "ENC", Redacted: true}}}),
		ev(5, event.TypeToolResult, event.ToolResult{CallID: "c2", Tool: "terminal", Content: "awaits approval", Error: &event.ErrorData{Kind: sdk.KindPendingApproval, Message: "awaits approval as a-1"}, ActionID: "a-1"}),
		ev(6, event.TypeToolResult, event.ToolResult{CallID: "c1", Tool: "read_file", OK: true, Content: "A"}),
		ev(7, event.TypeAssistantMessage, map[string]any{"content": "done", "tool_calls": []any{}}),
		ev(8, event.TypeUserMessage, map[string]any{"text": "more"}),
		ev(9, event.TypeAssistantMessage, map[string]any{"content": "calling", "tool_calls": []any{call("c3", "read_file", `{"path":"b"}`)}}),
		// killed before c3's result; later the action of c2 was approved:
		ev(10, event.TypeToolResult, event.ToolResult{CallID: "c2", Tool: "terminal", OK: true, Content: "a\nb", ActionID: "a-1"}),
	}
	got, err := Rebuild(events)
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.Message{
		{Role: sdk.RoleUser, Content: "do it"},
		{Role: sdk.RoleAssistant, Content: "looking", Reasoning: "r1",
			ReasoningBlocks: []sdk.ReasoningBlock{{Text: "r1", Signature: "EqSig+/="}, {Signature: "ENC", Redacted: true}}, ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "c2", Name: "terminal", Arguments: `{"command":"ls"}`}}},
		{Role: sdk.RoleTool, ToolCallID: "c1", Content: "A"},
		{Role: sdk.RoleTool, ToolCallID: "c2", Content: "error (pending_approval): awaits approval as a-1\nawaits approval", IsError: true},
		{Role: sdk.RoleAssistant, Content: "done"},
		{Role: sdk.RoleUser, Content: "more"},
		{Role: sdk.RoleUser, Content: "[Update] Your terminal call c2 (action a-1) was approved and ran. Result:\na\nb"},
	}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got.Turns != 2 || len(got.Calls) != 2 {
		t.Errorf("turns %d calls %d: the unfinished turn must be dropped", got.Turns, len(got.Calls))
	}
}

func TestWithPinnedMarksTheHeadOnly(t *testing.T) {
	t.Parallel()
	msgs := []sdk.Message{{Role: sdk.RoleSystem, Content: "s"}, {Role: sdk.RoleUser, Content: "task"}, {Role: sdk.RoleAssistant, Content: "a"}, {Role: sdk.RoleUser, Content: "more"}}
	got := withPinned(msgs)
	for i, want := range []bool{true, true, false, false} {
		if got[i].Pinned != want {
			t.Errorf("message %d pinned %v, want %v", i, got[i].Pinned, want)
		}
		if msgs[i].Pinned {
			t.Errorf("withPinned modified its input at %d", i)
		}
	}
}

func TestSplitNeverSeparatesACallFromItsResult(t *testing.T) {
	t.Parallel()
	msgs := []sdk.Message{
		{Role: sdk.RoleSystem, Content: "sys"},
		{Role: sdk.RoleUser, Content: "task"},
		{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: "1"}, {ID: "2"}}},
		{Role: sdk.RoleTool, ToolCallID: "1"},
		{Role: sdk.RoleTool, ToolCallID: "2"},
		{Role: sdk.RoleAssistant, Content: "ok"},
		{Role: sdk.RoleUser, Content: "next"},
	}
	pinned, groups := split(msgs)
	if len(pinned) != 2 || len(groups) != 3 || len(groups[0]) != 3 {
		t.Fatalf("pinned %d, groups %v", len(pinned), groups)
	}
}

type fakeRecorder struct{ events []string }

func (f *fakeRecorder) Record(_ context.Context, d event.Data) error {
	b, _ := json.Marshal(d)
	f.events = append(f.events, d.EventType()+" "+string(b))
	return nil
}

// longHistory is a system prompt, a task and ten big tool turns.
func longHistory() []sdk.Message {
	msgs := []sdk.Message{{Role: sdk.RoleSystem, Content: "sys"}, {Role: sdk.RoleUser, Content: "task"}}
	for i := 0; i < 10; i++ {
		msgs = append(msgs,
			sdk.Message{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: fmt.Sprint(i), Name: "read_file", Arguments: "{}"}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: fmt.Sprint(i), Content: strings.Repeat("x", 4000)})
	}
	return msgs
}

func TestCompactorFallbackAndBreaker(t *testing.T) {
	t.Parallel()
	msgs := longHistory()
	est := newEstimator()
	rec := &fakeRecorder{}
	c := &Compactor{ContextWindow: 10000, Threshold: 0.5, KeepRecent: 2}
	out, stop := c.Maybe(context.Background(), msgs, rec, &est, nil)
	if stop {
		t.Fatal("the first compaction stopped the run")
	}
	if len(out) != 2+1+4 || out[0].Content != "sys" || out[1].Content != "task" {
		t.Fatalf("compacted to %d messages: pinned kept? %q %q", len(out), out[0].Content, out[1].Content)
	}
	if !strings.Contains(rec.events[0], `"summarizer":"fallback"`) {
		t.Errorf("event %s", rec.events[0])
	}
	// A context that no compaction can bring under the threshold stops the
	// run after three tries in a row.
	huge := []sdk.Message{{Role: sdk.RoleSystem, Content: strings.Repeat("s", 40000)}, {Role: sdk.RoleUser, Content: "task"}}
	c2 := &Compactor{ContextWindow: 10000, Threshold: 0.5, KeepRecent: 2}
	for i := 1; i <= 3; i++ {
		_, stop := c2.Maybe(context.Background(), huge, rec, &est, nil)
		if stop != (i == 3) {
			t.Fatalf("try %d: stop %v", i, stop)
		}
	}
}

func TestSharedPrefixAndEstimator(t *testing.T) {
	t.Parallel()
	if n := sharedPrefix([]byte("abcdef"), []byte("abcxyz")); n != 3 {
		t.Errorf("shared prefix %d", n)
	}
	e := newEstimator()
	if got := e.tokens(400); got != 100 {
		t.Errorf("default estimate %d", got)
	}
	e.calibrate(400, 200) // the provider counts 2 bytes per token
	if got := e.tokens(400); got != 133 {
		t.Errorf("calibrated estimate %d, want halfway to 200", got)
	}
}

type streamingModel struct{ deltas []string }

func (m streamingModel) Complete(_ context.Context, _ llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	obs.OnChunk(0, "reasoning", "think")
	for _, d := range m.deltas {
		obs.OnChunk(1, "text", d)
	}
	obs.OnUsage(llm.Binding{Name: "m"}, sdk.Usage{PromptTokens: 10}, 0)
	return llm.AssistantMessage{Text: strings.Join(m.deltas, ""), FinishReason: "stop"}, llm.Binding{Name: "m"}, nil
}

type noTools struct{}

func (noTools) Definitions() []sdk.ToolDefinition { return nil }
func (noTools) Run(context.Context, sdk.Call) tools.Outcome {
	panic("no tool was asked for")
}

func TestChunkEventsAreBatchedInOrder(t *testing.T) {
	t.Parallel()
	var deltas []string
	for i := 0; i < 700; i++ {
		deltas = append(deltas, fmt.Sprintf("%02d", i%100))
	}
	rec := &fakeRecorder{}
	loop := New(Config{Session: "s"}, streamingModel{deltas}, noTools{}, rec, nil)
	_, out := loop.Run(context.Background(), []sdk.Message{{Role: sdk.RoleUser, Content: "go"}})
	if out.Status != StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	var text strings.Builder
	var chunks, usageAt, lastChunkAt int
	for i, e := range rec.events {
		typ, data, _ := strings.Cut(e, " ")
		switch typ {
		case "assistant.chunk":
			chunks++
			lastChunkAt = i
			var d struct {
				Kind, Delta string
			}
			_ = json.Unmarshal([]byte(data), &d)
			if d.Kind == "text" {
				text.WriteString(d.Delta)
			}
		case "llm.usage":
			usageAt = i
		}
	}
	if text.String() != strings.Join(deltas, "") {
		t.Error("the batched deltas do not add up to the streamed text")
	}
	if chunks < 3 || chunks > 5 {
		t.Errorf("%d chunk events for 1 reasoning delta and 1400 bytes of text; want them batched per block and ≤ 1 KiB", chunks)
	}
	if lastChunkAt > usageAt {
		t.Error("a chunk event was recorded after llm.usage")
	}
}

// scriptedModel answers each request with the next message and records
// what it was sent.
type scriptedModel struct {
	answers []llm.AssistantMessage
	seen    [][]sdk.Message
}

func (m *scriptedModel) Complete(_ context.Context, req llm.Request, _ llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	m.seen = append(m.seen, req.Messages)
	a := m.answers[0]
	m.answers = m.answers[1:]
	return a, llm.Binding{Name: "m"}, nil
}

// TestPauseTurnContinuesAndRefusalIsRecorded: a paused turn is sent back
// so the model continues it; a refusal ends the run with a structured
// agent.response.
func TestPauseTurnContinuesAndRefusalIsRecorded(t *testing.T) {
	t.Parallel()
	model := &scriptedModel{answers: []llm.AssistantMessage{
		{Text: "Searching the web…", FinishReason: FinishPaused},
		{Text: "No.", FinishReason: FinishRefusal},
	}}
	rec := &fakeRecorder{}
	_, out := New(Config{Session: "s"}, model, noTools{}, rec, nil).Run(context.Background(), []sdk.Message{{Role: sdk.RoleUser, Content: "go"}})
	if out.Status != StatusCompleted || out.Text != "No." {
		t.Fatalf("outcome %+v", out)
	}
	if len(model.seen) != 2 || len(model.seen[1]) != 2 || model.seen[1][1].Content != "Searching the web…" || !model.seen[1][0].Pinned {
		t.Errorf("the second request does not carry the paused turn after the pinned task: %+v", model.seen)
	}
	var responses []string
	for _, e := range rec.events {
		if typ, data, _ := strings.Cut(e, " "); typ == "agent.response" {
			responses = append(responses, data)
		}
	}
	if len(responses) != 1 || !strings.Contains(responses[0], `"refusal":true`) {
		t.Errorf("agent.response events %q, want one with refusal", responses)
	}
}

// hungModel is a summarizer that never answers: it waits for its deadline.
type hungModel struct{ deadline chan bool }

func (h hungModel) Complete(ctx context.Context, _ llm.Request, _ llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	<-ctx.Done()
	_, has := ctx.Deadline()
	h.deadline <- has
	return llm.AssistantMessage{}, llm.Binding{}, ctx.Err()
}

func TestCompactorSummaryTimeoutFallsBack(t *testing.T) {
	t.Parallel()
	msgs := longHistory()
	est := newEstimator()
	rec := &fakeRecorder{}
	hung := hungModel{deadline: make(chan bool, 1)}
	c := &Compactor{Model: hung, Bindings: []llm.Binding{{Name: "m"}}, ContextWindow: 10000, Threshold: 0.5, KeepRecent: 2, Timeout: 10 * time.Millisecond}
	if _, stop := c.Maybe(context.Background(), msgs, rec, &est, nil); stop {
		t.Fatal("the compaction stopped the run")
	}
	if !<-hung.deadline {
		t.Error("the summarizer's call had no deadline")
	}
	if len(rec.events) != 1 || !strings.Contains(rec.events[0], `"summarizer":"fallback"`) {
		t.Errorf("events %v, want one context.compacted by the fallback", rec.events)
	}
}

// batchRecorder is a fakeRecorder that can commit groups; groups lists
// the event types of each RecordAll call.
type batchRecorder struct {
	fakeRecorder
	groups [][]string
}

func (b *batchRecorder) RecordAll(ctx context.Context, ds ...event.Data) error {
	var types []string
	for _, d := range ds {
		types = append(types, d.EventType())
		_ = b.Record(ctx, d)
	}
	b.groups = append(b.groups, types)
	return nil
}

// The events that close a model request (the last deltas, the message and,
// for the answer, agent.response) are committed as one group when the
// recorder can, and in the order they were recorded one by one.
func TestRequestClosingEventsAreOneCommit(t *testing.T) {
	t.Parallel()
	one := &fakeRecorder{}
	if _, out := New(Config{Session: "s"}, streamingModel{[]string{"hel", "lo"}}, noTools{}, one, nil).Run(context.Background(), []sdk.Message{{Role: sdk.RoleUser, Content: "go"}}); out.Status != StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	batched := &batchRecorder{}
	if _, out := New(Config{Session: "s"}, streamingModel{[]string{"hel", "lo"}}, noTools{}, batched, nil).Run(context.Background(), []sdk.Message{{Role: sdk.RoleUser, Content: "go"}}); out.Status != StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	if strings.Join(batched.events, "\n") != strings.Join(one.events, "\n") {
		t.Errorf("batched events differ from the one-by-one ones:\n%s\nvs\n%s", batched.events, one.events)
	}
	want := [][]string{{"assistant.message", "agent.response"}}
	if fmt.Sprint(batched.groups) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", batched.groups, want)
	}
}
