package approval_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

func TestApplyRoundTrip(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	store := openStore(t, ws)
	ctx := context.Background()
	deferring := envOptions{perm: config.Permissions{Unattended: config.UnattendedDefer}}

	tests := []struct {
		name    string
		approve bool
	}{
		{"approve", true},
		{"deny", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := newEnv(t, ws, store, deferring)
			o := run.ex.Run(ctx, sdk.Call{ID: "call_9", Tool: "terminal", Arguments: args("command", "make release")})
			if !o.Pending || o.ActionID == "" || run.src.count() != 0 {
				t.Fatalf("want a pending action, got %+v", o)
			}

			// Later, `harness actions approve|deny` builds a fresh executor for the agent.
			later := newEnv(t, ws, store, envOptions{})
			got, err := approval.Apply(ctx, store, later.ex, o.ActionID[:6], tt.approve)
			if err != nil {
				t.Fatal(err)
			}
			a, err := store.Action(ctx, o.ActionID)
			if err != nil {
				t.Fatal(err)
			}
			decided := run.events(t, event.TypeActionDecided)
			results := run.events(t, event.TypeToolResult)
			if len(decided) != 2 || decided[1]["decision"] != map[bool]string{true: "approved", false: "denied"}[tt.approve] || decided[1]["by"] != "user" {
				t.Errorf("action.decided events %v", decided)
			}
			if len(results) != 2 || results[1]["call_id"] != "call_9" || results[1]["action_id"] != a.ID {
				t.Fatalf("tool.result events %v", results)
			}
			if len(later.events(t, event.TypeToolResult)) != 0 {
				t.Error("events went to the session of the executor, not of the action")
			}

			if !tt.approve {
				if a.Status != "denied" || a.DecidedBy != "user" || run.src.count() != 0 || later.src.count() != 0 {
					t.Errorf("denied action %+v ran %d+%d", a, run.src.count(), later.src.count())
				}
				if got.Result.Err == nil || got.Result.Err.Kind != sdk.KindDenied || results[1]["ok"] != false {
					t.Errorf("denied outcome %+v", got.Result)
				}
				return
			}
			if a.Status != "executed" || a.DecidedBy != "user" || a.Rule != "harness actions approve" || later.src.count() != 1 {
				t.Errorf("approved action %+v ran %d times", a, later.src.count())
			}
			var res tools.ResultEvent
			if err := json.Unmarshal(a.Result, &res); err != nil {
				t.Fatal(err)
			}
			if !res.OK || res.Content != "ran terminal" || res.CallID != "call_9" || res.ActionID != a.ID || got.Result.Content != "ran terminal" {
				t.Errorf("recorded result %s, outcome %+v", a.Result, got.Result)
			}
			if results[1]["ok"] != true {
				t.Errorf("tool.result %v", results[1])
			}
		})
	}
}

func TestApplyRefusesDecidedActions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, o := deferredTerminal(t, "make")
	store := e.store
	if _, err := approval.Apply(ctx, store, e.ex, o.ActionID, false); err != nil {
		t.Fatal(err)
	}
	_, err := approval.Apply(ctx, store, e.ex, o.ActionID, true)
	if err == nil || !strings.Contains(err.Error(), "is denied") {
		t.Errorf("second decision: %v", err)
	}
	if _, err := approval.Apply(ctx, store, e.ex, "a-nothere", true); err == nil {
		t.Error("an unknown action should be an error")
	}
}

func TestApplyNeedsTheTool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, o := deferredTerminal(t, "make")
	store := e.store
	empty, err := tools.NewExecutor(tools.NewRegistry(), tools.Options{Approver: nopApprover{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := approval.Apply(ctx, store, empty, o.ActionID, true); err == nil || !strings.Contains(err.Error(), "stays pending") {
		t.Errorf("Apply without the tool: %v", err)
	}
	if a, _ := store.Action(ctx, o.ActionID); a.Status != "pending" {
		t.Errorf("status %s, want pending", a.Status)
	}
	if _, err := approval.Apply(ctx, store, nil, o.ActionID, false); err != nil {
		t.Errorf("denying needs no executor: %v", err)
	}
}

type nopApprover struct{}

func (nopApprover) Approve(context.Context, tools.ApprovalRequest) tools.Approval {
	return tools.Approval{}
}

func (nopApprover) Executed(context.Context, string, tools.ResultEvent) error { return nil }

// An action nobody decided within approval_timeout is denied by timeout:
// the store, action.decided and the model's tool.result all say so, and
// the call does not run.
func TestApplyTimeoutVerdict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, o := deferredTerminal(t, "make deploy")
	store := e.store
	got, err := approval.ApplyVerdict(ctx, store, nil, o.ActionID, approval.TimeoutVerdict(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	a, err := store.Action(ctx, o.ActionID)
	if err != nil {
		t.Fatal(err)
	}
	if !approval.TimedOut(a) || a.Rule != "approval_timeout 24h0m0s: no decision in time" {
		t.Errorf("action after the timeout: status %s by %s (%s), want denied by unattended with the approval_timeout rule", a.Status, a.DecidedBy, a.Rule)
	}
	if e.src.count() != 0 {
		t.Errorf("the timed-out call ran %d times", e.src.count())
	}
	decided := e.events(t, event.TypeActionDecided)
	if len(decided) != 2 || decided[1]["by"] != "unattended" || !strings.Contains(decided[1]["rule"].(string), "approval_timeout") {
		t.Errorf("action.decided events %v", decided)
	}
	msg := got.Result.Content
	if got.Result.Err == nil || got.Result.Err.Kind != sdk.KindDenied || !strings.Contains(msg, "nobody decided within the approval timeout (24h0m0s)") {
		t.Errorf("the model is told %q, want a denial by timeout", msg)
	}
	results := e.events(t, event.TypeToolResult)
	if len(results) != 2 || results[1]["content"] != msg {
		t.Errorf("tool.result events %v", results)
	}
}

// A person's no with a reason, given to a Temporal session's workflow, is
// stored and told to the model as a no answered in the run.
func TestApplyDenyBecause(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, o := deferredTerminal(t, "make deploy")
	store := e.store
	got, err := approval.ApplyVerdict(ctx, store, nil, o.ActionID, approval.DenyBecause("use make test"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := store.Action(ctx, o.ActionID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != "denied" || a.DecidedBy != "user" || a.Rule != "no: use make test" {
		t.Errorf("action: %s by %s (%s), want denied by user with the reason", a.Status, a.DecidedBy, a.Rule)
	}
	if !strings.Contains(got.Result.Content, `denied by the user, who said: "use make test"`) || e.src.count() != 0 {
		t.Errorf("the model is told %q (ran %d times)", got.Result.Content, e.src.count())
	}
}

// deferredTerminal runs the terminal command in a fresh session whose
// unattended policy defers, and returns the call's outcome: a pending action.
func deferredTerminal(t *testing.T, command string) (*env, tools.Outcome) {
	t.Helper()
	ws := t.TempDir()
	e := newEnv(t, ws, openStore(t, ws), envOptions{perm: config.Permissions{Unattended: config.UnattendedDefer}})
	return e, e.ex.Run(context.Background(), sdk.Call{ID: "c", Tool: "terminal", Arguments: args("command", command)})
}
