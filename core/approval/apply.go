package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Rules of decisions made with `harness actions`.
const (
	ruleCLIApprove = "harness actions approve"
	ruleCLIDeny    = "harness actions deny"
)

// Apply decides a pending action after its run ended (`harness actions
// approve|deny ID`); id may be a unique prefix. Approving runs the stored
// call through ex (every phase but approve: ex must be built for the
// action's agent) and records the result with the action; denying records
// the decision and needs no executor (ex may be nil). Both write
// action.decided (by user) and a tool.result for the action's call to the
// action's session, which a resumed run reads.
func Apply(ctx context.Context, store *session.Store, ex *tools.Executor, id string, approve bool) (tools.Outcome, error) {
	v := Verdict{Approve: approve, By: ByUser, Rule: ruleCLIDeny}
	if approve {
		v.Rule = ruleCLIApprove
	}
	return ApplyVerdict(ctx, store, ex, id, v)
}

// Verdict is a decision on a pending action made after its run: who made
// it (By, as action.decided says), the rule stored with the action (what
// `actions list/show` print) and, for a denial, why, in the words the
// model is told.
type Verdict struct {
	Approve  bool
	By, Rule string
	// Why completes "TOOL (SUMMARY) was denied …" for the model; "" is
	// "by the user".
	Why string
}

// RuleApprovalTimeout is the rule of an action denied because nobody
// decided within the permissions' approval_timeout.
func RuleApprovalTimeout(d time.Duration) string {
	return fmt.Sprintf("approval_timeout %s: no decision in time", d)
}

// TimedOut reports whether a was denied because its approval_timeout ran out.
func TimedOut(a session.Action) bool {
	return a.Status == Denied && a.DecidedBy == ByUnattended && strings.HasPrefix(a.Rule, "approval_timeout ")
}

// TimeoutVerdict denies an action nobody decided within approval_timeout:
// by unattended (nobody answered), with the timeout as its rule.
func TimeoutVerdict(d time.Duration) Verdict {
	return Verdict{By: ByUnattended, Rule: RuleApprovalTimeout(d),
		Why: fmt.Sprintf("because nobody decided within the approval timeout (%s)", d)}
}

// DenyBecause is a person's no with their reason (answered at a terminal
// other than the run's, e.g. to a Temporal session's workflow): the rule
// and the model's message are those of a no answered in the run.
func DenyBecause(reason string) Verdict {
	v := verdict{decision: Denied, by: ByUser, rule: ruleNo + ": " + reason, reason: reason}
	return Verdict{By: ByUser, Rule: v.rule, Why: v.explain()}
}

// ApplyVerdict is Apply with the decider and rule of v.
func ApplyVerdict(ctx context.Context, store *session.Store, ex *tools.Executor, id string, v Verdict) (tools.Outcome, error) {
	a, err := store.Action(ctx, id)
	if err != nil {
		return tools.Outcome{}, err
	}
	if a.Status != session.ActionStatusPending {
		return tools.Outcome{}, fmt.Errorf("action %s is %s: only a pending action can be approved or denied", a.ID, a.Status)
	}
	if v.Approve && (ex == nil || !ex.Visible(a.Tool)) {
		return tools.Outcome{}, fmt.Errorf("action %s calls %s, which the agent's configuration no longer offers: it stays pending", a.ID, a.Tool)
	}
	rec := tools.SessionRecorder(store, a.Session)
	call := sdk.Call{ID: a.CallID, Tool: a.Tool, Arguments: a.Arguments}

	decision := Denied
	if v.Approve {
		decision = Approved
	}
	if err := store.DecideAction(ctx, a.ID, decision, v.By, v.Rule); err != nil {
		return tools.Outcome{}, err
	}
	if err := rec.Record(ctx, event.ActionDecided{ActionID: a.ID, CallID: a.CallID, Decision: decision, By: v.By, Rule: v.Rule}); err != nil {
		return tools.Outcome{}, err
	}

	if !v.Approve {
		why := v.Why
		if why == "" {
			why = "by the user"
		}
		out := tools.Outcome{Call: call, ActionID: a.ID, Result: sdk.Result{Err: sdk.Errorf(sdk.KindDenied,
			"%s (%s) was denied %s and did not run. Do not retry it as it is: choose another way, or tell the user what you need and why.",
			a.Tool, a.Summary, why)}}
		out.Result.Content = out.Result.Err.Error()
		return out, rec.Record(ctx, out.ResultEvent())
	}

	return runApproved(ctx, store, ex, a, rec)
}

// runApproved runs the call of approved action a through ex and records its
// result with the action and in its session.
func runApproved(ctx context.Context, store *session.Store, ex *tools.Executor, a session.Action, rec tools.Recorder) (tools.Outcome, error) {
	call := sdk.Call{ID: a.CallID, Tool: a.Tool, Arguments: a.Arguments}
	out := ex.RunApproved(ctx, call, a.ID, rec)
	raw, err := json.Marshal(out.ResultEvent())
	if err != nil {
		return out, err
	}
	if err := store.SetActionResult(context.WithoutCancel(ctx), a.ID, raw); err != nil {
		return out, err
	}
	return out, out.RecordErr
}

// ApproveElsewhere approves pending action id from a machine that does not
// hold its session's workspace (`harness actions approve` on machine B of a
// shared store, docs/scale.md): the decision is recorded, with host, and
// the call runs where the workspace is, when the session is resumed there
// (RunDecided). Two approvers racing: one wins, the other gets the store's
// "already decided by …" error.
func ApproveElsewhere(ctx context.Context, store *session.Store, id, host string) (session.Action, error) {
	a, err := store.Action(ctx, id)
	if err != nil {
		return a, err
	}
	rule := ruleCLIApprove + " on " + host + " (runs when the session resumes on its machine)"
	if err := store.DecideAction(ctx, a.ID, Approved, ByUser, rule); err != nil {
		return a, err
	}
	rec := tools.SessionRecorder(store, a.Session)
	return a, rec.Record(ctx, event.ActionDecided{ActionID: a.ID, CallID: a.CallID, Decision: Approved, By: ByUser, Rule: rule})
}

// RunDecided runs the actions of session that were approved but not run (by
// ApproveElsewhere), oldest first, through ex, recording each result; a
// resumed run calls it before it rebuilds the conversation. A call whose
// tool the configuration no longer offers gets an error result: it was
// decided, so it is not asked again.
// rec records (and may print) the events, in session sid.
func RunDecided(ctx context.Context, store *session.Store, ex *tools.Executor, rec tools.Recorder, sid string) ([]tools.Outcome, error) {
	approved, err := store.Actions(ctx, sid, session.ActionStatusApproved)
	if err != nil {
		return nil, err
	}
	var outs []tools.Outcome
	for _, a := range approved {
		if !ex.Visible(a.Tool) {
			out := tools.Outcome{Call: sdk.Call{ID: a.CallID, Tool: a.Tool, Arguments: a.Arguments}, ActionID: a.ID,
				Result: sdk.Result{Err: sdk.Errorf(sdk.KindDenied, "%s was approved, but the agent's configuration no longer offers it: it did not run", a.Tool)}}
			out.Result.Content = out.Result.Err.Error()
			raw, err := json.Marshal(out.ResultEvent())
			if err != nil {
				return outs, err
			}
			if err := store.SetActionResult(ctx, a.ID, raw); err != nil {
				return outs, err
			}
			if err := rec.Record(ctx, out.ResultEvent()); err != nil {
				return outs, err
			}
			outs = append(outs, out)
			continue
		}
		out, err := runApproved(ctx, store, ex, a, rec)
		outs = append(outs, out)
		if err != nil {
			return outs, err
		}
	}
	return outs, nil
}
