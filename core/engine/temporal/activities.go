package temporal

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Activities run a session's side effects on a worker.
type Activities struct {
	Sessions Sessions
	// Queue is this worker's own task queue, served by RegisterActivities
	// on it: a session placed here (Place) has its activities sent there.
	// "": the sessions' activities go to the shared queue.
	Queue string
}

// Register registers the workflow and the activities with w.
func Register(w worker.Registry, a *Activities) {
	w.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(a.Place, activity.RegisterOptions{Name: ActivityPlace})
	w.RegisterActivityWithOptions(a.Fail, activity.RegisterOptions{Name: ActivityFail})
	RegisterActivities(w, a)
}

// RegisterActivities registers the activities of a session with w (the
// worker of a.Queue).
func RegisterActivities(w worker.Registry, a *Activities) {
	w.RegisterActivityWithOptions(a.Definitions, activity.RegisterOptions{Name: ActivityDefinitions})
	w.RegisterActivityWithOptions(a.Model, activity.RegisterOptions{Name: ActivityModel})
	w.RegisterActivityWithOptions(a.Tool, activity.RegisterOptions{Name: ActivityTool})
	w.RegisterActivityWithOptions(a.Decide, activity.RegisterOptions{Name: ActivityDecide})
	w.RegisterActivityWithOptions(a.Record, activity.RegisterOptions{Name: ActivityRecord})
}

// onceKey is what the activity writes once is keyed by: its workflow run
// and the key the workflow gave it (or, without one, its activity id).
// Outside an activity (a direct call) it is "": nothing is deduplicated.
func onceKey(ctx context.Context, key string) string {
	if !activity.IsActivity(ctx) {
		return ""
	}
	info := activity.GetInfo(ctx)
	if key == "" {
		key = "activity-" + info.ActivityID
	}
	return info.WorkflowExecution.RunID + "/" + key
}

// runtime returns the session's runtime with the buffered events committed,
// each group once: a retry of the activity (its worker was lost after it
// committed them) commits none of them again.
func (a *Activities) runtime(ctx context.Context, id, key string, events []Event) (*Runtime, error) {
	rt, err := a.Sessions.Runtime(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("session %s on this worker: %w", id, err)
	}
	var ds []event.Data
	var usage []session.Usage
	for _, ev := range events {
		if ev.Usage != nil {
			usage = append(usage, *ev.Usage)
			continue
		}
		d, err := event.DecodeData(ev.Type, ev.Data)
		if err != nil {
			return nil, fmt.Errorf("session %s: decoding a buffered %s event: %w", id, ev.Type, err)
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 && len(usage) == 0 {
		return rt, nil
	}
	if once, ok := rt.Recorder.(OnceRecorder); ok {
		if key = onceKey(ctx, key); key != "" {
			// One transaction, once: a retry commits none of it again.
			if err := once.RecordOnce(ctx, key+"/events", ds, usage); err != nil {
				return nil, fmt.Errorf("session %s: recording events: %w", id, err)
			}
			return rt, nil
		}
	}
	if rt.Meter != nil {
		for _, u := range usage {
			if err := rt.Meter.RecordUsage(ctx, u); err != nil {
				return nil, fmt.Errorf("session %s: metering usage: %w", id, err)
			}
		}
	}
	if err := event.RecordAll(ctx, rt.Recorder, ds...); err != nil {
		return nil, fmt.Errorf("session %s: recording events: %w", id, err)
	}
	return rt, nil
}

// Place places a session on this worker: it returns the task queue its
// activities go to.
func (a *Activities) Place(context.Context) (string, error) { return a.Queue, nil }

// Fail ends a session whose workflow stopped on an error (see Failer).
func (a *Activities) Fail(ctx context.Context, in FailInput) error {
	if f, ok := a.Sessions.(Failer); ok {
		return f.Fail(ctx, in.Session, in.Message)
	}
	return nil
}

// Definitions returns the schemas of the session's tools.
func (a *Activities) Definitions(ctx context.Context, id string) ([]sdk.ToolDefinition, error) {
	defer heartbeat(ctx)() // the session's plugins may start now
	rt, err := a.runtime(ctx, id, "", nil)
	if err != nil {
		return nil, err
	}
	return rt.Tools.Definitions(), nil
}

// Model sends one model request, its deltas recorded as they arrive.
func (a *Activities) Model(ctx context.Context, in ModelInput) (ModelOutput, error) {
	defer heartbeat(ctx)() // from the start: the session's plugins may start first
	rt, err := a.runtime(ctx, in.Session, in.Key, in.Events)
	if err != nil {
		return ModelOutput{}, err
	}
	model, bs := rt.Model, rt.Bindings
	obs := &chunks{ctx: ctx, rec: rt.Recorder, budget: in.Budget}
	defer obs.stop()
	if in.Summarizer {
		model, bs = rt.SummarizerModel, rt.Summarizer
		obs.quiet = true
		if model == nil {
			return ModelOutput{Err: &sdk.Error{Kind: sdk.KindInvalidRequest, Message: "no summarizer model on this worker"}}, nil
		}
	}
	if once, ok := rt.Recorder.(OnceRecorder); ok && !obs.quiet {
		if key := onceKey(ctx, in.Key); key != "" {
			first, err := once.Claim(ctx, key+"/sent")
			if err != nil {
				return ModelOutput{}, fmt.Errorf("session %s: %w", in.Session, err)
			}
			if !first {
				// An execution before was lost with its worker: what it
				// streamed is void, as after a retry of the llm layer
				// (llm.retry says so), and the request is sent again.
				retry := event.LLMRetry{Attempt: max(1, int(activity.GetInfo(ctx).Attempt)-1), Kind: sdk.KindTimeout}
				if err := rt.Recorder.Record(ctx, retry); err != nil {
					return ModelOutput{}, fmt.Errorf("session %s: recording the retry: %w", in.Session, err)
				}
			}
		}
	}
	req := llm.Request{Bindings: bs, Messages: in.Messages, Tools: in.Tools,
		PromptTokensEst: in.PromptTokensEst, Session: in.Session, Budget: obs.checkBudget}
	if in.Limit {
		req.Limit = obs.streamLimit
	}
	msg, b, err := model.Complete(ctx, req, obs)
	obs.flush()
	out := ModelOutput{Message: msg, Binding: b, Usages: obs.usages}
	if err != nil {
		if ctx.Err() != nil {
			return ModelOutput{}, err // the activity was stopped: Temporal decides
		}
		out.Err = sdk.AsError(err)
		if le, ok := llm.AsLimit(err); ok {
			out.Cut = le
		}
	}
	return out, nil
}

// Tool runs one tool call through the session's executor.
func (a *Activities) Tool(ctx context.Context, in ToolInput) (ToolOutput, error) {
	defer heartbeat(ctx)()
	rt, err := a.runtime(ctx, in.Session, in.Key, in.Events)
	if err != nil {
		return ToolOutput{}, err
	}
	once, ok := rt.Recorder.(OnceRecorder)
	ex, announces := rt.Tools.(announcer)
	if key := onceKey(ctx, in.Key); ok && announces && key != "" {
		// The call's tool.call is committed once, by this activity's
		// first attempt to get that far: a retry (a read-only call whose
		// worker was lost) runs the call again without announcing it twice.
		if err := once.RecordOnce(ctx, key+"/call", []event.Data{tools.CallEvent(in.Call)}, nil); err != nil {
			return ToolOutput{}, fmt.Errorf("session %s: recording tool.call %s: %w", in.Session, in.Call.ID, err)
		}
		ex.Announced(in.Call.ID)
	}
	o := rt.Tools.Run(ctx, in.Call)
	// The presentation went into tool.result with the executor; the loop
	// does not read it, and an interface does not decode from the history.
	o.Result.Presentation = nil
	out := ToolOutput{Call: o.Call, Result: o.Result, DurationMS: o.Duration.Milliseconds(), StopRun: o.StopRun, Pending: o.Pending, ActionID: o.ActionID}
	if o.RecordErr != nil {
		out.RecordErr = o.RecordErr.Error()
	}
	return out, nil
}

// announcer is implemented by executors that let their caller record a
// call's tool.call (*tools.Executor).
type announcer interface{ Announced(ids ...string) }

// Decide runs or denies a pending action.
func (a *Activities) Decide(ctx context.Context, in DecideInput) (tools.ResultEvent, error) {
	defer heartbeat(ctx)()
	rt, err := a.runtime(ctx, in.Session, in.Key, in.Events)
	if err != nil {
		return tools.ResultEvent{}, err
	}
	return rt.Decide(ctx, in.Decision)
}

// Record commits buffered events and, at the end, ends the session.
func (a *Activities) Record(ctx context.Context, in RecordInput) error {
	defer heartbeat(ctx)()
	rt, err := a.runtime(ctx, in.Session, in.Key, in.Events)
	if err != nil {
		return err
	}
	if in.End != nil && rt.End != nil {
		return rt.End(ctx, *in.End)
	}
	return nil
}

// heartbeat tells the server the activity's worker is alive until stopped.
func heartbeat(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	every := activity.GetInfo(ctx).HeartbeatTimeout / 3
	if every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// chunks records a request's deltas as assistant.chunk events, batched as
// the local loop batches them (per block, at most chunkWait after the
// first delta of a batch or chunkBytes long), and its retries; it keeps
// its usage for the workflow and the session's budget with it.
type chunks struct {
	ctx    context.Context
	rec    event.Recorder
	quiet  bool // the summarizer's: no chunks
	mu     sync.Mutex
	block  int
	kind   string
	buf    strings.Builder
	timer  *time.Timer
	usages []UsageReport
	budget agent.Budget // with the usage of this request's attempts so far
}

const (
	chunkWait  = 40 * time.Millisecond
	chunkBytes = 1024
)

// checkBudget is the pre-check of each attempt (Budget.Check).
func (c *chunks) checkBudget(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.budget.Check()
}

// streamLimit is asked after every chunk (Budget.StreamLimit).
func (c *chunks) streamLimit(p llm.Progress) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.budget.StreamLimit(p)
}

func (c *chunks) OnRetry(attempt int, kind sdk.ErrorKind, delay time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	if !c.quiet {
		_ = c.rec.Record(c.ctx, event.LLMRetry{Attempt: attempt, Kind: kind, DelayMS: delay.Milliseconds()})
	}
}

func (c *chunks) OnChunk(block int, kind, delta string) {
	if c.quiet {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf.Len() > 0 && (block != c.block || kind != c.kind) {
		c.flushLocked()
	}
	if c.buf.Len() == 0 {
		c.block, c.kind = block, kind
		c.timer = time.AfterFunc(chunkWait, c.flush)
	}
	c.buf.WriteString(delta)
	if c.buf.Len() >= chunkBytes {
		c.flushLocked()
	}
}

func (c *chunks) OnUsage(b llm.Binding, u sdk.Usage, cost float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	c.usages = append(c.usages, UsageReport{Binding: b, Usage: u, Cost: cost})
	c.budget = c.budget.Spend(u, cost)
}

func (c *chunks) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

// stop ends the batching: nothing is recorded after the activity returns.
func (c *chunks) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	c.quiet = true
}

func (c *chunks) flushLocked() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.buf.Len() == 0 {
		return
	}
	_ = c.rec.Record(c.ctx, event.AssistantChunk{Block: c.block, Kind: c.kind, Delta: c.buf.String()})
	c.buf.Reset()
}
