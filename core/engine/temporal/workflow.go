package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Workflow runs one session: agent.Loop, with activities for its side
// effects, and durable approval waits between runs of the loop. When it
// cannot go on (an activity failed every attempt: the session's
// configuration or plugins cannot be opened on any worker, its store
// fails), the session is ended as an error, so that nobody follows or
// waits for it in vain.
func Workflow(ctx workflow.Context, in Input) (Result, error) {
	res, err := runSession(ctx, in)
	if err != nil && !temporal.IsCanceledError(err) && !workflow.IsContinueAsNewError(err) {
		fctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute,
			RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
		})
		_ = workflow.ExecuteActivity(fctx, ActivityFail, FailInput{Session: in.Session, Message: err.Error()}).Get(ctx, nil)
	}
	return res, err
}

func runSession(ctx workflow.Context, in Input) (Result, error) {
	w := &wf{ctx: ctx, in: in, timeouts: in.Timeouts.withDefaults(), decisions: map[string]Decision{}}
	sig := workflow.GetSignalChannel(ctx, SignalDecision)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var d Decision
			sig.Receive(ctx, &d)
			if _, seen := w.decisions[d.ActionID]; !seen {
				w.decisions[d.ActionID] = d
			}
		}
	})

	var defs []sdk.ToolDefinition
	if err := w.execute(w.short(), ActivityDefinitions, in.Session, &defs); err != nil {
		return Result{}, err
	}
	cfg := agent.Config{
		Session: in.Session, Agent: in.Agent, Bindings: bindings(in.Models),
		MaxTurns: in.MaxTurns, MaxTokens: in.MaxTokens, MaxUSD: in.MaxUSD,
		// Concurrency is the workflow's: the calls of a turn run one after
		// another, each an activity.
		ReadOnly: func(string) bool { return false },
	}
	if c := in.Compaction; c != nil {
		cfg.Compactor = &agent.Compactor{Bindings: bindings(c.Summarizer),
			ContextWindow: c.ContextWindow, Threshold: c.Threshold, KeepRecent: c.KeepRecent, Timeout: c.Timeout, MaxIneffective: c.MaxIneffective}
		if len(c.Summarizer) > 0 {
			cfg.Compactor.Model = &wfModel{w: w, summarizer: true}
		}
	}
	w.tools = &wfTools{w: w, defs: defs}
	loop := agent.New(cfg, &wfModel{w: w}, w.tools, w, w)
	w.loop = loop
	if r := in.Restore; r != nil { // a resumed session: its counters, and its pending actions to wait for
		ids := make([]string, len(r.Pending))
		for i, p := range r.Pending {
			ids[i] = p.ID
			w.tools.pending = append(w.tools.pending, pendingAction{id: p.ID, since: p.Since})
		}
		loop.Restore(r.Turns, r.Tokens, r.CostUSD, ids)
	}

	msgs := in.Messages
	var out agent.Outcome
	for {
		msgs, out = loop.Run(context.Background(), msgs)
		if out.Status != agent.StatusPending || len(w.tools.pending) == 0 {
			break
		}
		// Every pending action waits for its decision (or its timeout);
		// the model then hears of them and the loop goes on.
		for len(w.tools.pending) > 0 {
			p := w.tools.pending[0]
			w.tools.pending = w.tools.pending[1:]
			d, err := w.await(p)
			if err != nil {
				return Result{}, err
			}
			var res tools.ResultEvent
			if err := w.execute(w.toolOptions(false), ActivityDecide, DecideInput{Session: in.Session, Key: w.key(), Events: w.take(), Decision: d}, &res); err != nil {
				// The decision could not be applied (the action was decided
				// elsewhere, or its worker was lost): the model hears of it.
				res = tools.ResultEvent{ActionID: p.id, Content: "the decision could not be applied: " + err.Error(),
					Error: &event.ErrorData{Kind: sdk.KindInternal, Message: err.Error()}}
			}
			loop.Resolved(p.id)
			msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Content: agent.LateNote(res)})
		}
	}
	res := Result{Status: out.Status, Limit: out.Limit, Err: out.Err, Text: out.Text, Totals: loop.Totals()}
	if err := w.execute(w.short(), ActivityRecord, RecordInput{Session: in.Session, Key: w.key(), Events: w.take(), End: &res}, nil); err != nil {
		return res, err
	}
	return res, nil
}

func bindings(names []string) []llm.Binding {
	out := make([]llm.Binding, len(names))
	for i, n := range names {
		out[i] = llm.Binding{Name: n}
	}
	return out
}

// wf is one execution's state; it is the loop's Recorder and Meter.
type wf struct {
	ctx       workflow.Context
	in        Input
	timeouts  Timeouts
	buf       []Event
	tools     *wfTools
	loop      *agent.Loop
	decisions map[string]Decision
	seq       int // the last activity key given
	// queue is the task queue of the worker the session is placed on
	// (its activities run there, with its plugins started once); placed
	// is false before the first activity and after that worker was lost.
	queue  string
	placed bool
}

// Record buffers an event for the next activity to commit.
func (w *wf) Record(_ context.Context, d event.Data) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	w.buf = append(w.buf, Event{Type: d.EventType(), Data: raw})
	return nil
}

// RecordUsage buffers a usage record for the next activity to commit.
func (w *wf) RecordUsage(_ context.Context, u session.Usage) error {
	w.buf = append(w.buf, Event{Usage: &u})
	return nil
}

// key names the next activity (ModelInput.Key): deterministic, so a
// replay assigns the same keys.
func (w *wf) key() string {
	w.seq++
	return "a" + strconv.Itoa(w.seq)
}

func (w *wf) take() []Event {
	b := w.buf
	w.buf = nil
	return b
}

// short is for the bookkeeping activities.
func (w *wf) short() workflow.Context {
	return workflow.WithActivityOptions(w.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    w.timeouts.Heartbeat,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
}

// execute runs activity name (with the options of ctx) on the worker the
// session is placed on, placing it first on whichever worker of the queue
// answers. The session's activities so go to one worker, which starts its
// plugins once.
//
// The attempts of ctx's retry policy are made here, each on the session's
// worker of the moment: when that worker is gone (its activity went a
// heartbeat without news, or waited a heartbeat for it in vain) the
// session is placed again at once and the next attempt runs on the new
// worker. An attempt that never started does not count.
func (w *wf) execute(ctx workflow.Context, name string, in, out any) error {
	o := workflow.GetActivityOptions(ctx)
	attempts := int32(1)
	if o.RetryPolicy != nil && o.RetryPolicy.MaximumAttempts > 0 {
		attempts = o.RetryPolicy.MaximumAttempts
	}
	for attempt, moved := int32(1), 0; ; {
		if !w.placed {
			var q string
			if err := workflow.ExecuteActivity(w.short(), ActivityPlace).Get(w.ctx, &q); err != nil {
				return err
			}
			w.queue, w.placed = q, true
		}
		if w.queue == "" { // no worker queue: Temporal retries on the shared one
			return workflow.ExecuteActivity(ctx, name, in).Get(w.ctx, out)
		}
		po := o
		po.TaskQueue, po.ScheduleToStartTimeout = w.queue, w.timeouts.Heartbeat
		po.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: 1}
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(w.ctx, po), name, in).Get(w.ctx, out)
		if err == nil {
			return nil
		}
		lost := false
		var te *temporal.TimeoutError
		if errors.As(err, &te) {
			switch te.TimeoutType() {
			case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
				w.placed = false
				if moved++; moved <= maxMoves {
					continue // it never started: run it on another worker
				}
				return err
			case enumspb.TIMEOUT_TYPE_HEARTBEAT:
				w.placed, lost = false, true
			}
		}
		var ae *temporal.ApplicationError
		if attempt >= attempts || temporal.IsCanceledError(err) || (errors.As(err, &ae) && ae.NonRetryable()) {
			return err
		}
		if !lost { // the worker is there: give the cause time to pass
			if err := workflow.Sleep(w.ctx, retryDelay(attempt)); err != nil {
				return err
			}
		}
		attempt++
	}
}

// maxMoves bounds how often one activity is moved to another worker.
const maxMoves = 5

// retryDelay is the wait before attempt+1, as Temporal's default policy:
// 1s, doubling, at most 100s.
func retryDelay(attempt int32) time.Duration {
	d := time.Second << min(attempt-1, 7)
	return min(d, 100*time.Second)
}

func (w *wf) toolOptions(readOnly bool) workflow.Context {
	attempts := int32(1) // a writing call is never run twice
	if readOnly {
		attempts = 3
	}
	return workflow.WithActivityOptions(w.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: w.timeouts.Tool,
		HeartbeatTimeout:    w.timeouts.Heartbeat,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: attempts},
	})
}

// await waits for p's decision, or denies it when its approval timeout
// (a durable timer, counted from when the action became pending) runs out.
func (w *wf) await(p pendingAction) (Decision, error) {
	decided := func() bool { _, ok := w.decisions[p.id]; return ok }
	if w.in.ApprovalTimeout <= 0 {
		if err := workflow.Await(w.ctx, decided); err != nil {
			return Decision{}, err
		}
		return w.decisions[p.id], nil
	}
	left := p.since.Add(w.in.ApprovalTimeout).Sub(workflow.Now(w.ctx))
	ok := decided()
	if !ok && left > 0 {
		var err error
		if ok, err = workflow.AwaitWithTimeout(w.ctx, left, decided); err != nil {
			return Decision{}, err
		}
	}
	if !ok {
		return Decision{ActionID: p.id, Reason: fmt.Sprintf("no decision within the approval timeout (%s)", w.in.ApprovalTimeout),
			TimedOut: w.in.ApprovalTimeout}, nil
	}
	return w.decisions[p.id], nil
}

// wfModel is the loop's Model: each request is an activity.
type wfModel struct {
	w          *wf
	summarizer bool
}

func (m *wfModel) Complete(_ context.Context, req llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	w := m.w
	if ro, ok := obs.(llm.RequestObserver); ok && len(req.Bindings) > 0 {
		ro.OnRequest(llm.RequestInfo{Binding: req.Bindings[0]})
	}
	actx := workflow.WithActivityOptions(w.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: w.timeouts.Model,
		HeartbeatTimeout:    w.timeouts.Heartbeat,
		// A request that did not complete may be sent again; one that
		// completed is in the history and never is.
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	in := ModelInput{Session: w.in.Session, Key: w.key(), Events: w.take(), Summarizer: m.summarizer,
		Messages: req.Messages, Tools: req.Tools, PromptTokensEst: req.PromptTokensEst,
		Budget: w.loop.Budget(), Limit: req.Limit != nil}
	var out ModelOutput
	if err := w.execute(actx, ActivityModel, in, &out); err != nil {
		return llm.AssistantMessage{}, llm.Binding{}, &sdk.Error{Kind: sdk.KindProviderUnavailable, Message: "model request failed on the worker: " + err.Error()}
	}
	for i, u := range out.Usages {
		if out.Cut != nil && req.Limit != nil && i == len(out.Usages)-1 {
			// The loop's own rule sees the cut, as it would have while the
			// response streamed: its usage is metered as the loop meters a
			// stopped response.
			req.Limit(out.Cut.Progress)
		}
		obs.OnUsage(u.Binding, u.Usage, u.Cost)
	}
	if out.Cut != nil {
		return llm.AssistantMessage{Usage: out.Cut.Progress.Usage}, out.Binding, out.Cut
	}
	if out.Err != nil {
		return out.Message, out.Binding, out.Err
	}
	return out.Message, out.Binding, nil
}

type pendingAction struct {
	id    string
	since time.Time
}

// wfTools is the loop's Tools: each call is an activity.
type wfTools struct {
	w       *wf
	defs    []sdk.ToolDefinition
	pending []pendingAction // in the order they became pending
}

func (t *wfTools) Definitions() []sdk.ToolDefinition { return t.defs }

func (t *wfTools) Run(_ context.Context, call sdk.Call) tools.Outcome {
	w := t.w
	readOnly := slices.Contains(w.in.ReadOnly, call.Tool)
	var out ToolOutput
	err := w.execute(w.toolOptions(readOnly), ActivityTool, ToolInput{Session: w.in.Session, Key: w.key(), Events: w.take(), Call: call}, &out)
	if err != nil {
		// The call was lost with its worker (or failed every attempt):
		// the model is told, and a writing call is not run again.
		o := tools.Outcome{Call: call, Result: sdk.Result{Err: interrupted(call, readOnly, err)}}
		o.Result.Content = o.Result.Err.Message
		_ = w.Record(context.Background(), o.ResultEvent())
		return o
	}
	o := tools.Outcome{Call: out.Call, Result: out.Result, Duration: time.Duration(out.DurationMS) * time.Millisecond,
		StopRun: out.StopRun, Pending: out.Pending, ActionID: out.ActionID}
	if out.RecordErr != "" {
		o.RecordErr = errors.New(out.RecordErr)
	}
	if out.Pending {
		t.pending = append(t.pending, pendingAction{id: out.ActionID, since: workflow.Now(w.ctx)})
	}
	return o
}

func interrupted(call sdk.Call, readOnly bool, err error) *sdk.Error {
	if readOnly {
		return &sdk.Error{Kind: sdk.KindCanceled, Message: fmt.Sprintf("interrupted: the %s call failed on every worker that tried it (%v)", call.Tool, err)}
	}
	return &sdk.Error{Kind: sdk.KindCanceled, Message: fmt.Sprintf(
		"interrupted: the worker running this %s call stopped before it finished; it was not run again because %s is not read-only, so its effects may be partial — check before repeating it", call.Tool, call.Tool)}
}
