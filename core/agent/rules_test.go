package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// replyModel answers every request with the next of replies (the last one
// again once they run out), metering each with usage and cost.
type replyModel struct {
	mu      sync.Mutex
	replies []llm.AssistantMessage
	cost    float64
	calls   int
}

func (m *replyModel) Complete(_ context.Context, _ llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	m.mu.Lock()
	msg := m.replies[min(m.calls, len(m.replies)-1)]
	m.calls++
	m.mu.Unlock()
	b := llm.Binding{Name: "m"}
	obs.OnUsage(b, msg.Usage, m.cost)
	return msg, b, nil
}

// callTurn is a reply that calls tool once per name, ids c1, c2, ….
func callTurn(tokens int64, names ...string) llm.AssistantMessage {
	msg := llm.AssistantMessage{FinishReason: "tool_calls", Usage: sdk.Usage{PromptTokens: tokens}}
	for i, n := range names {
		msg.ToolCalls = append(msg.ToolCalls, sdk.ToolCall{ID: fmt.Sprintf("c%d", i+1), Name: n, Arguments: `{}`})
	}
	return msg
}

func answer(text string) llm.AssistantMessage {
	return llm.AssistantMessage{Text: text, FinishReason: "stop", Usage: sdk.Usage{PromptTokens: 1}}
}

// funcTools runs every call with run.
type funcTools struct {
	run func(ctx context.Context, call sdk.Call) tools.Outcome
}

func (funcTools) Definitions() []sdk.ToolDefinition { return nil }
func (f funcTools) Run(ctx context.Context, call sdk.Call) tools.Outcome {
	return f.run(ctx, call)
}

func okTool(_ context.Context, call sdk.Call) tools.Outcome {
	return tools.Outcome{Call: call, Result: sdk.Result{Content: "ran " + call.ID}}
}

// limitOf is the limit of the recorded toolloop.limit_reached event, if any.
func limitOf(rec *fakeRecorder) string {
	for _, e := range rec.events {
		if rest, ok := strings.CutPrefix(e, event.TypeLimitReached+" "); ok {
			var d event.LimitReached
			_ = json.Unmarshal([]byte(rest), &d)
			return d.Limit
		}
	}
	return ""
}

// TestLoopRules runs the loop against fakes for each rule that ends a
// run: the outcome, the number of model requests, and the limit event.
func TestLoopRules(t *testing.T) {
	t.Parallel()
	pending := func(_ context.Context, call sdk.Call) tools.Outcome {
		return tools.Outcome{Call: call, Pending: true, ActionID: "a-" + call.ID,
			Result: sdk.Result{Err: &sdk.Error{Kind: sdk.KindPendingApproval, Message: "awaits approval"}}}
	}
	repeated := func(_ context.Context, call sdk.Call) tools.Outcome {
		return tools.Outcome{Call: call, StopRun: LimitRepeatedCall, Result: sdk.Result{Err: &sdk.Error{Kind: sdk.KindRepeatedCall, Message: "again"}}}
	}
	tests := []struct {
		name      string
		cfg       Config
		replies   []llm.AssistantMessage
		cost      float64
		run       func(context.Context, sdk.Call) tools.Outcome
		status    string
		limit     string
		requests  int
		finalText string
	}{
		{name: "an answer completes", replies: []llm.AssistantMessage{callTurn(10, "t"), answer("done")},
			status: StatusCompleted, requests: 2, finalText: "done"},
		{name: "max_turns", cfg: Config{MaxTurns: 3}, replies: []llm.AssistantMessage{callTurn(10, "t")},
			status: StatusLimit, limit: LimitMaxTurns, requests: 3},
		{name: "max_tokens", cfg: Config{MaxTokens: 100}, replies: []llm.AssistantMessage{callTurn(60, "t")},
			status: StatusLimit, limit: LimitMaxTokens, requests: 2},
		{name: "max_tokens not reached", cfg: Config{MaxTokens: 100}, replies: []llm.AssistantMessage{callTurn(40, "t"), callTurn(40, "t"), answer("done")},
			status: StatusCompleted, requests: 3, finalText: "done"},
		{name: "max_usd", cfg: Config{MaxUSD: 1}, cost: 0.6, replies: []llm.AssistantMessage{callTurn(10, "t")},
			status: StatusLimit, limit: LimitMaxUSD, requests: 2},
		{name: "a pending approval ends the run as pending", run: pending, replies: []llm.AssistantMessage{callTurn(10, "terminal"), answer("waiting")},
			status: StatusPending, requests: 2, finalText: "waiting"},
		{name: "the repeated-call guard stops the run", run: repeated, replies: []llm.AssistantMessage{callTurn(10, "t")},
			status: StatusLimit, limit: LimitRepeatedCall, requests: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model := &replyModel{replies: tc.replies, cost: tc.cost}
			run := tc.run
			if run == nil {
				run = okTool
			}
			rec := &fakeRecorder{}
			cfg := tc.cfg
			cfg.Session = "s"
			_, out := New(cfg, model, funcTools{run}, rec, nil).Run(context.Background(), []sdk.Message{{Role: sdk.RoleUser, Content: "go"}})
			if out.Status != tc.status || out.Limit != tc.limit || out.Text != tc.finalText {
				t.Errorf("outcome %+v, want status %s limit %q text %q", out, tc.status, tc.limit, tc.finalText)
			}
			if model.calls != tc.requests {
				t.Errorf("%d model requests, want %d", model.calls, tc.requests)
			}
			if got := limitOf(rec); got != tc.limit {
				t.Errorf("toolloop.limit_reached says %q, want %q (events %q)", got, tc.limit, rec.events)
			}
		})
	}
}

// TestReadOnlyCallsRunAtOnceResultsInCallOrder: the read-only calls of a
// turn run concurrently (the first cannot finish before the second has
// run), a writing call waits for the reads before it, and the results
// reach the conversation in the model's order.
func TestReadOnlyCallsRunAtOnceResultsInCallOrder(t *testing.T) {
	t.Parallel()
	secondDone := make(chan struct{})
	var mu sync.Mutex
	var finished []string
	run := func(_ context.Context, call sdk.Call) tools.Outcome {
		switch call.ID {
		case "c1":
			select {
			case <-secondDone:
			case <-time.After(30 * time.Second): // failsafe only: sequential calls would never get here otherwise
				t.Error("c1 ran alone: the read-only calls did not run concurrently")
			}
		case "c2":
			defer close(secondDone)
		}
		mu.Lock()
		finished = append(finished, call.ID)
		mu.Unlock()
		return okTool(context.Background(), call)
	}
	model := &replyModel{replies: []llm.AssistantMessage{callTurn(10, "read_file", "search_workspace", "write_file"), answer("done")}}
	cfg := Config{Session: "s", ReadOnly: func(tool string) bool { return tool != "write_file" }}
	msgs, out := New(cfg, model, funcTools{run}, &fakeRecorder{}, nil).Run(context.Background(), []sdk.Message{{Role: sdk.RoleUser, Content: "go"}})
	if out.Status != StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	if strings.Join(finished, ",") != "c2,c1,c3" {
		t.Errorf("calls finished in the order %v, want c2,c1 (concurrent reads) then c3 (the write, after them)", finished)
	}
	var order []string
	for _, m := range msgs {
		if m.Role == sdk.RoleTool {
			order = append(order, m.ToolCallID+"="+m.Content)
		}
	}
	if want := "c1=ran c1,c2=ran c2,c3=ran c3"; strings.Join(order, ",") != want {
		t.Errorf("results in the conversation %v, want %s", order, want)
	}
}
