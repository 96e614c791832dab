package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// fakeModel answers from a script, one reply per request, and keeps the
// requests it got.
type fakeModel struct {
	mu      sync.Mutex
	replies []llm.AssistantMessage
	reqs    []llm.Request
}

func (m *fakeModel) Complete(_ context.Context, req llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if len(m.replies) == 0 {
		return llm.AssistantMessage{}, llm.Binding{}, sdk.Errorf(sdk.KindInvalidRequest, "fake model: no reply scripted for request %d", len(m.reqs))
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	b := llm.Binding{Name: "fake"}
	if r.Text != "" {
		obs.OnChunk(0, "text", r.Text)
	}
	r.Usage = sdk.Usage{PromptTokens: 100, CompletionTokens: 10}
	obs.OnUsage(b, r.Usage, 0.01)
	return r, b, nil
}

func (m *fakeModel) requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

// fakeTools runs every call with run.
type fakeTools struct {
	run func(sdk.Call) tools.Outcome
}

func (t *fakeTools) Definitions() []sdk.ToolDefinition {
	return []sdk.ToolDefinition{{Name: "write_file", Description: "writes"}}
}

func (t *fakeTools) Run(_ context.Context, c sdk.Call) tools.Outcome { return t.run(c) }

// memory records events and usage in order.
type memory struct {
	mu     sync.Mutex
	events []string
	data   []event.Data
	usage  []session.Usage
	ended  *Result
}

func (r *memory) Record(_ context.Context, d event.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, d.EventType())
	r.data = append(r.data, d)
	return nil
}

func (r *memory) RecordUsage(_ context.Context, u session.Usage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.usage = append(r.usage, u)
	return nil
}

// onceMemory is a memory that commits each key once, as the session store
// does (AppendAllOnce, Claim).
type onceMemory struct {
	*memory
	keys map[string]bool
}

func (r *onceMemory) claim(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys[key] {
		return false
	}
	r.keys[key] = true
	return true
}

func (r *onceMemory) RecordOnce(ctx context.Context, key string, ds []event.Data, usage []session.Usage) error {
	if !r.claim(key) {
		return nil
	}
	for _, d := range ds {
		_ = r.Record(ctx, d)
	}
	for _, u := range usage {
		_ = r.RecordUsage(ctx, u)
	}
	return nil
}

func (r *onceMemory) Claim(_ context.Context, key string) (bool, error) { return r.claim(key), nil }

type oneSession struct{ rt *Runtime }

func (s oneSession) Runtime(context.Context, string) (*Runtime, error) { return s.rt, nil }

type fixture struct {
	env       *testsuite.TestWorkflowEnvironment
	rt        *Runtime
	model     *fakeModel
	mem       *memory
	decisions []Decision
}

// testEnvironment is a test workflow environment whose deadlock detector
// allows a workflow task 30 s instead of the SDK's 1 s: under -race on a
// loaded 2-core machine a task of these tests was once starved past 1 s
// ("Potential deadlock detected"), while a real deadlock still fails.
func testEnvironment(s *testsuite.WorkflowTestSuite) *testsuite.TestWorkflowEnvironment {
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 30 * time.Second})
	return env
}

func newFixture(t *testing.T, replies []llm.AssistantMessage, run func(sdk.Call) tools.Outcome) *fixture {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	f := &fixture{env: testEnvironment(&s), model: &fakeModel{replies: replies}, mem: &memory{}}
	rt := &Runtime{Model: f.model, Bindings: []llm.Binding{{Name: "fake"}}, Tools: &fakeTools{run: run}, Recorder: f.mem, Meter: f.mem,
		Decide: func(_ context.Context, d Decision) (tools.ResultEvent, error) {
			f.mem.mu.Lock()
			f.decisions = append(f.decisions, d)
			f.mem.mu.Unlock()
			if d.Approve {
				return tools.ResultEvent{CallID: "c1", Tool: "write_file", OK: true, Content: "wrote 5 bytes", ActionID: d.ActionID}, nil
			}
			return tools.ResultEvent{CallID: "c1", Tool: "write_file", Content: "denied: " + d.Reason, ActionID: d.ActionID,
				Error: &event.ErrorData{Kind: sdk.KindDenied, Message: d.Reason}}, nil
		},
		End: func(_ context.Context, r Result) error {
			f.mem.mu.Lock()
			f.mem.ended = &r
			f.mem.mu.Unlock()
			return nil
		},
	}
	f.rt = rt
	Register(f.env, &Activities{Sessions: oneSession{rt}})
	return f
}

func (f *fixture) run(t *testing.T, in Input) Result {
	t.Helper()
	if in.Session == "" {
		in.Session = "s1"
	}
	in.Models = []string{"fake"}
	if in.Messages == nil {
		in.Messages = []sdk.Message{{Role: sdk.RoleSystem, Content: "be brief"}, {Role: sdk.RoleUser, Content: "write hello"}}
	}
	f.env.ExecuteWorkflow(WorkflowName, in)
	if !f.env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := f.env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	var res Result
	if err := f.env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func call(id string) llm.AssistantMessage {
	return llm.AssistantMessage{FinishReason: "tool_calls", ToolCalls: []sdk.ToolCall{{ID: id, Name: "write_file", Arguments: `{"path":"a.txt","content":"hello"}`}}}
}

func answer(text string) llm.AssistantMessage {
	return llm.AssistantMessage{Text: text, FinishReason: "stop"}
}

func ran(c sdk.Call) tools.Outcome {
	return tools.Outcome{Call: c, Result: sdk.Result{Content: "wrote 5 bytes"}}
}

// contents renders the messages of req, one a line.
func contents(req llm.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
	}
	return b.String()
}

func TestWorkflowTurnsWithToolCall(t *testing.T) {
	f := newFixture(t, []llm.AssistantMessage{call("c1"), answer("done")}, ran)
	res := f.run(t, Input{})
	if res.Status != agent.StatusCompleted || res.Text != "done" || res.Totals.Turns != 2 {
		t.Fatalf("result = %+v, want completed after 2 turns with \"done\"", res)
	}
	if res.Totals.Tokens != 220 {
		t.Errorf("tokens = %d, want 220 (2 × 110, metered in the workflow)", res.Totals.Tokens)
	}
	reqs := f.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("model got %d requests, want 2", len(reqs))
	}
	if got := contents(reqs[1]); !strings.Contains(got, "tool: wrote 5 bytes") {
		t.Errorf("second request does not carry the tool result:\n%s", got)
	}
	want := []string{"llm.request", "llm.usage", "assistant.message", "llm.request", "assistant.chunk", "llm.usage", "assistant.message", "agent.response"}
	if got := strings.Join(f.mem.events, " "); got != strings.Join(want, " ") {
		t.Errorf("events in the store:\n got %s\nwant %s", got, strings.Join(want, " "))
	}
	if len(f.mem.usage) != 2 || f.mem.usage[1].Turn != 2 {
		t.Errorf("usage records = %+v, want one per turn", f.mem.usage)
	}
	if f.mem.ended == nil || f.mem.ended.Status != agent.StatusCompleted {
		t.Errorf("session not ended as completed: %+v", f.mem.ended)
	}
}

func TestWorkflowMaxTurns(t *testing.T) {
	f := newFixture(t, []llm.AssistantMessage{call("c1"), call("c2"), call("c3")}, ran)
	res := f.run(t, Input{MaxTurns: 2})
	if res.Status != agent.StatusLimit || res.Limit != agent.LimitMaxTurns {
		t.Fatalf("result = %+v, want limit max_turns", res)
	}
	if n := len(f.model.requests()); n != 2 {
		t.Errorf("model got %d requests, want 2 (max_turns = 2)", n)
	}
	if got := f.mem.events[len(f.mem.events)-1]; got != "toolloop.limit_reached" {
		t.Errorf("last event = %s, want toolloop.limit_reached", got)
	}
}

func TestWorkflowTokenBudget(t *testing.T) {
	f := newFixture(t, []llm.AssistantMessage{call("c1"), call("c2")}, ran)
	res := f.run(t, Input{MaxTokens: 100})
	if res.Status != agent.StatusLimit || res.Limit != agent.LimitMaxTokens {
		t.Fatalf("result = %+v, want limit max_tokens", res)
	}
	if n := len(f.model.requests()); n != 1 {
		t.Errorf("model got %d requests, want 1: the budget was spent by the first", n)
	}
}

// pendingOnce makes the first call await approval.
func pendingOnce(c sdk.Call) tools.Outcome {
	return tools.Outcome{Call: c, Pending: true, ActionID: "act-1",
		Result: sdk.Result{Content: "awaiting approval as act-1", Err: &sdk.Error{Kind: sdk.KindPendingApproval, Message: "awaiting approval"}}}
}

func TestWorkflowApprovalSignal(t *testing.T) {
	for _, approve := range []bool{true, false} {
		t.Run(fmt.Sprintf("approve=%v", approve), func(t *testing.T) {
			f := newFixture(t, []llm.AssistantMessage{call("c1"), answer("waiting for approval"), answer("done")}, pendingOnce)
			f.env.RegisterDelayedCallback(func() {
				f.env.SignalWorkflow(SignalDecision, Decision{ActionID: "act-1", Approve: approve, Reason: "not now"})
			}, time.Hour)
			res := f.run(t, Input{ApprovalTimeout: 24 * time.Hour})
			if res.Status != agent.StatusCompleted || res.Text != "done" || res.Totals.Pending != 0 {
				t.Fatalf("result = %+v, want completed with nothing pending", res)
			}
			if len(f.decisions) != 1 || f.decisions[0].Approve != approve {
				t.Fatalf("decisions applied = %+v, want one with approve=%v", f.decisions, approve)
			}
			reqs := f.model.requests()
			if len(reqs) != 3 {
				t.Fatalf("model got %d requests, want 3", len(reqs))
			}
			want := "was approved and ran"
			if !approve {
				want = "was denied and did not run"
			}
			if got := contents(reqs[2]); !strings.Contains(got, want) {
				t.Errorf("request after the decision does not say %q:\n%s", want, got)
			}
		})
	}
}

func TestWorkflowApprovalTimeoutDenies(t *testing.T) {
	f := newFixture(t, []llm.AssistantMessage{call("c1"), answer("waiting for approval"), answer("ok, not written")}, pendingOnce)
	start := f.env.Now()
	res := f.run(t, Input{ApprovalTimeout: 24 * time.Hour})
	if res.Status != agent.StatusCompleted {
		t.Fatalf("result = %+v, want completed", res)
	}
	if len(f.decisions) != 1 || f.decisions[0].Approve || f.decisions[0].TimedOut != 24*time.Hour || !strings.Contains(f.decisions[0].Reason, "approval timeout (24h0m0s)") {
		t.Fatalf("decisions applied = %+v, want one denial for the timeout", f.decisions)
	}
	if waited := f.env.Now().Sub(start); waited < 24*time.Hour {
		t.Errorf("workflow clock advanced %s, want the 24h timeout to have run out", waited)
	}
	if got := contents(f.model.requests()[2]); !strings.Contains(got, "was denied") {
		t.Errorf("the model was not told of the denial:\n%s", got)
	}
}

func TestWorkflowInterruptedToolCall(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("read_only=%v", readOnly), func(t *testing.T) {
			f := newFixture(t, []llm.AssistantMessage{call("c1"), answer("done")}, ran)
			attempts := 0
			// The worker is lost in the middle of the call (on every
			// attempt but the third).
			f.env.OnActivity(ActivityTool, mock.Anything, mock.Anything).Return(func(_ context.Context, in ToolInput) (ToolOutput, error) {
				attempts++
				if attempts < 3 {
					return ToolOutput{}, errors.New("activity heartbeat timeout: worker lost")
				}
				return ToolOutput{Call: in.Call, Result: sdk.Result{Content: "read it"}}, nil
			})
			in := Input{}
			if readOnly {
				in.ReadOnly = []string{"write_file"}
			}
			res := f.run(t, in)
			if res.Status != agent.StatusCompleted {
				t.Fatalf("result = %+v, want completed", res)
			}
			got := contents(f.model.requests()[1])
			if readOnly {
				if attempts != 3 || !strings.Contains(got, "tool: read it") {
					t.Errorf("read-only call: %d attempts, model saw:\n%s\nwant 3 attempts and the result", attempts, got)
				}
				return
			}
			if attempts != 1 {
				t.Errorf("writing call ran %d times, want once", attempts)
			}
			if !strings.Contains(got, "interrupted: the worker running this write_file call stopped") {
				t.Errorf("the model was not told the call was interrupted:\n%s", got)
			}
		})
	}
}

// A tool result with a presentation (an interface in sdk.Result, which does
// not decode from JSON) reaches the loop: the activity's output carries
// what the loop reads, the executor has recorded the rest.
func TestWorkflowToolResultWithPresentation(t *testing.T) {
	f := newFixture(t, []llm.AssistantMessage{call("c1"), answer("done")}, func(c sdk.Call) tools.Outcome {
		return tools.Outcome{Call: c, Result: sdk.Result{Content: "read it", Presentation: sdk.FileView{Path: "a.txt", StartLine: 1, EndLine: 1}}}
	})
	if res := f.run(t, Input{}); res.Status != agent.StatusCompleted {
		t.Fatalf("result = %+v, want completed", res)
	}
	if got := contents(f.model.requests()[1]); !strings.Contains(got, "tool: read it") || strings.Contains(got, "interrupted") {
		t.Errorf("the model did not get the tool's result:\n%s", got)
	}
}

// endless streams text until the request's limit stops it, as a server
// that ignores max_output would; the usage of the stopped attempt is the
// llm layer's estimate.
type endless struct{ requests int }

func (m *endless) Complete(ctx context.Context, req llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	m.requests++
	b := llm.Binding{Name: "fake"}
	if req.Budget != nil {
		if err := req.Budget(ctx); err != nil {
			return llm.AssistantMessage{}, b, err
		}
	}
	for out := int64(10); ; out += 10 {
		obs.OnChunk(0, "text", "and on and on and on and on ")
		p := llm.Progress{Binding: b, Usage: sdk.Usage{PromptTokens: req.PromptTokensEst, CompletionTokens: out}, Cost: float64(out) / 1000, Estimated: true}
		if req.Limit == nil {
			return llm.AssistantMessage{}, b, errors.New("the request has no stream limit")
		}
		if limit := req.Limit(p); limit != "" {
			obs.OnUsage(b, p.Usage, p.Cost)
			return llm.AssistantMessage{Usage: p.Usage}, b, &llm.LimitError{Limit: limit, Progress: p}
		}
	}
}

// A response that streams past the budget is stopped while it streams, on
// the worker, as the local loop stops it: limit max_tokens (or max_usd),
// the stopped attempt's usage metered as estimated, no assistant.message.
func TestWorkflowStopsAStreamingResponseAtTheBudget(t *testing.T) {
	for _, tt := range []struct {
		limit string
		in    Input
	}{
		{agent.LimitMaxTokens, Input{MaxTokens: 5000}},
		{agent.LimitMaxUSD, Input{MaxUSD: 0.5}},
	} {
		t.Run(tt.limit, func(t *testing.T) {
			f := newFixture(t, nil, ran)
			model := &endless{}
			f.rt.Model = model
			res := f.run(t, tt.in)
			if res.Status != agent.StatusLimit || res.Limit != tt.limit {
				t.Fatalf("result = %+v, want limit %s", res, tt.limit)
			}
			if model.requests != 1 {
				t.Errorf("%d requests, want 1: a limit is not retried", model.requests)
			}
			if res.Totals.Tokens == 0 || res.Totals.CostUSD == 0 {
				t.Errorf("totals %+v: the stopped response's usage is not counted", res.Totals)
			}
			var usage []event.LLMUsage
			for _, d := range f.mem.data {
				switch d := d.(type) {
				case event.LLMUsage:
					usage = append(usage, d)
				case event.AssistantMessage:
					t.Errorf("assistant.message recorded: a stopped response is not an answer")
				}
			}
			if len(usage) != 1 || !usage[0].Estimated || usage[0].CompletionTokens == 0 {
				t.Errorf("llm.usage events %+v, want one estimated", usage)
			}
			if len(f.mem.usage) != 1 {
				t.Errorf("usage records %+v, want the stopped response's", f.mem.usage)
			}
			last := f.mem.data[len(f.mem.data)-1]
			if lr, ok := last.(event.LimitReached); !ok || lr.Limit != tt.limit {
				t.Errorf("last event %#v, want toolloop.limit_reached %s", last, tt.limit)
			}
			if n := strings.Count(strings.Join(f.mem.events, " "), "assistant.chunk"); n == 0 {
				t.Errorf("no assistant.chunk recorded before the cut: %v", f.mem.events)
			}
		})
	}
}

// A session's activities go to the worker it was placed on; when that
// worker is gone (an activity waited for it in vain), the session is
// placed on another and the activity, which never started, runs there.
func TestWorkflowMovesToAnotherWorker(t *testing.T) {
	f := newFixture(t, nil, ran)
	places := 0
	f.env.OnActivity(ActivityPlace, mock.Anything).Return(func(context.Context) (string, error) {
		places++
		return fmt.Sprintf("worker-%d", places), nil
	})
	var queues []string
	f.env.OnActivity(ActivityModel, mock.Anything, mock.Anything).Return(func(ctx context.Context, in ModelInput) (ModelOutput, error) {
		queues = append(queues, activity.GetInfo(ctx).TaskQueue)
		if len(queues) == 1 {
			return ModelOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)
		}
		return ModelOutput{Message: answer("done"), Binding: llm.Binding{Name: "fake"}}, nil
	})
	res := f.run(t, Input{})
	if res.Status != agent.StatusCompleted || res.Text != "done" {
		t.Fatalf("result = %+v, want completed with \"done\"", res)
	}
	if got := strings.Join(queues, " "); got != "worker-1 worker-2" || places != 2 {
		t.Errorf("model requests ran on %q after %d placements, want worker-1 (gone) then worker-2", got, places)
	}
	if f.mem.ended == nil {
		t.Error("the session was not ended on its new worker")
	}
}

// A worker lost in the middle of a call (its heartbeat stopped): a
// read-only call runs again at once on the worker the session is placed on
// next, up to its attempts; a writing call is not run again.
func TestWorkflowLostWorkerRetries(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("read_only=%v", readOnly), func(t *testing.T) {
			f := newFixture(t, []llm.AssistantMessage{call("c1"), answer("done")}, ran)
			places := 0
			f.env.OnActivity(ActivityPlace, mock.Anything).Return(func(context.Context) (string, error) {
				places++
				return fmt.Sprintf("worker-%d", places), nil
			})
			var queues []string
			f.env.OnActivity(ActivityTool, mock.Anything, mock.Anything).Return(func(ctx context.Context, in ToolInput) (ToolOutput, error) {
				queues = append(queues, activity.GetInfo(ctx).TaskQueue)
				if len(queues) < 3 {
					return ToolOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
				}
				return ToolOutput{Call: in.Call, Result: sdk.Result{Content: "read it"}}, nil
			})
			in := Input{}
			if readOnly {
				in.ReadOnly = []string{"write_file"}
			}
			if res := f.run(t, in); res.Status != agent.StatusCompleted {
				t.Fatalf("result = %+v, want completed", res)
			}
			got := contents(f.model.requests()[1])
			want := "worker-1"
			if readOnly {
				want = "worker-1 worker-2 worker-3"
			}
			if q := strings.Join(queues, " "); q != want {
				t.Errorf("the call ran on %q, want %q", q, want)
			}
			if readOnly != strings.Contains(got, "tool: read it") || readOnly == strings.Contains(got, "interrupted") {
				t.Errorf("the model saw:\n%s", got)
			}
		})
	}
}

// lostOnce is a model whose first request's worker is lost mid-stream (the
// activity panics after a chunk went into the store); the retry answers.
type lostOnce struct {
	fakeModel
	lost bool
}

func (m *lostOnce) Complete(ctx context.Context, req llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	if !m.lost {
		m.lost = true
		obs.OnChunk(0, "text", "The notes s")
		obs.(interface{ flush() }).flush() // the chunk is in the store
		panic("worker lost mid-stream")
	}
	return m.fakeModel.Complete(ctx, req, obs)
}

// announcingTools records each call's tool.call unless its caller did
// (tools.Executor.Announced), and is lost in the middle of its first call.
type announcingTools struct {
	fakeTools
	rec       *memory
	announced map[string]bool
	runs      int
}

func (t *announcingTools) Announced(ids ...string) {
	for _, id := range ids {
		t.announced[id] = true
	}
}

func (t *announcingTools) Run(ctx context.Context, c sdk.Call) tools.Outcome {
	if !t.announced[c.ID] {
		_ = t.rec.Record(ctx, tools.CallEvent(c))
	}
	delete(t.announced, c.ID)
	t.runs++
	if t.runs == 1 {
		panic("worker lost mid-call")
	}
	o := ran(c)
	_ = t.rec.Record(ctx, o.ResultEvent())
	return o
}

// A retried activity writes nothing twice: the events the workflow
// buffered and the usage are committed once whatever the attempts, the
// retried model request starts with llm.retry (the lost attempt's chunk is
// void), and a read-only call run again is announced once.
func TestWorkflowRetriedActivitiesWriteEventsOnce(t *testing.T) {
	f := newFixture(t, nil, ran)
	mem := &onceMemory{memory: f.mem, keys: map[string]bool{}}
	model := &lostOnce{fakeModel: fakeModel{replies: []llm.AssistantMessage{call("c1"), answer("done")}}}
	ts := &announcingTools{rec: f.mem, announced: map[string]bool{}}
	f.rt.Model, f.rt.Tools, f.rt.Recorder, f.rt.Meter = model, ts, mem, mem
	res := f.run(t, Input{ReadOnly: []string{"write_file"}})
	if res.Status != agent.StatusCompleted || res.Totals.Turns != 2 {
		t.Fatalf("result = %+v, want completed after 2 turns", res)
	}
	want := []string{
		"llm.request", "assistant.chunk", "llm.retry", "llm.usage", "assistant.message",
		"tool.call", "tool.result",
		"llm.request", "assistant.chunk", "llm.usage", "assistant.message", "agent.response",
	}
	if got := strings.Join(f.mem.events, " "); got != strings.Join(want, " ") {
		t.Errorf("events in the store:\n got %s\nwant %s", got, strings.Join(want, " "))
	}
	if len(f.mem.usage) != 2 {
		t.Errorf("%d usage records, want 2: one per completed request", len(f.mem.usage))
	}
	if n := len(model.requests()); n != 2 {
		t.Errorf("the model answered %d requests, want 2: the completed one is not sent again", n)
	}
	if ts.runs != 2 {
		t.Errorf("the read-only call ran %d times, want 2 (lost, then retried)", ts.runs)
	}
}

// A resumed session's workflow starts from its counters and waits for the
// actions it left pending, as the loop's own pending ones.
func TestWorkflowResumedSession(t *testing.T) {
	f := newFixture(t, []llm.AssistantMessage{answer("still waiting"), answer("done")}, ran)
	f.env.RegisterDelayedCallback(func() {
		f.env.SignalWorkflow(SignalDecision, Decision{ActionID: "act-9", Approve: true})
	}, time.Hour)
	res := f.run(t, Input{MaxTokens: 10_000, ApprovalTimeout: 24 * time.Hour,
		Restore: &Restore{Turns: 3, Tokens: 500, CostUSD: 0.5, Pending: []Pending{{ID: "act-9", Since: f.env.Now()}}}})
	if res.Status != agent.StatusCompleted || res.Text != "done" {
		t.Fatalf("result = %+v, want completed", res)
	}
	if res.Totals.Turns != 5 || res.Totals.Tokens != 500+2*110 || res.Totals.Pending != 0 {
		t.Errorf("totals %+v, want 5 turns and 720 tokens over the session, nothing pending", res.Totals)
	}
	if len(f.decisions) != 1 || f.decisions[0].ActionID != "act-9" || !f.decisions[0].Approve {
		t.Errorf("decisions applied %+v, want act-9 approved", f.decisions)
	}
}

// failingSessions cannot open any session's runtime, and keeps the
// sessions it was asked to end as failed.
type failingSessions struct {
	mu     sync.Mutex
	failed []FailInput
}

func (s *failingSessions) Runtime(context.Context, string) (*Runtime, error) {
	return nil, errors.New("configuration agent.hcl: no such file")
}

func (s *failingSessions) Fail(_ context.Context, id, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = append(s.failed, FailInput{Session: id, Message: message})
	return nil
}

// A workflow that cannot go on (no worker can open the session) ends the
// session as an error instead of leaving it running.
func TestWorkflowFailureEndsTheSession(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := testEnvironment(&suite)
	ss := &failingSessions{}
	Register(env, &Activities{Sessions: ss})
	env.ExecuteWorkflow(WorkflowName, Input{Session: "s1", Models: []string{"fake"}})
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() == nil {
		t.Fatalf("the workflow completed=%v with error %v, want it failed", env.IsWorkflowCompleted(), env.GetWorkflowError())
	}
	if len(ss.failed) != 1 || ss.failed[0].Session != "s1" || !strings.Contains(ss.failed[0].Message, "no such file") {
		t.Errorf("sessions ended as failed: %+v, want s1 with the cause", ss.failed)
	}
}
