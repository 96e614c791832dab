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

// runtime returns the session's runtime with the buffered events committed.
func (a *Activities) runtime(ctx context.Context, id string, events []Event) (*Runtime, error) {
	rt, err := a.Sessions.Runtime(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("session %s on this worker: %w", id, err)
	}
	// The events between two usage records are committed together (one
	// transaction) when the store can.
	var batch []event.Data
	flush := func() error {
		defer func() { batch = batch[:0] }()
		if b, ok := rt.Recorder.(event.Batcher); ok && len(batch) > 1 {
			return b.RecordAll(ctx, batch...)
		}
		for _, d := range batch {
			if err := rt.Recorder.Record(ctx, d); err != nil {
				return err
			}
		}
		return nil
	}
	for _, ev := range events {
		if ev.Usage != nil {
			if err := flush(); err != nil {
				return nil, fmt.Errorf("session %s: recording events: %w", id, err)
			}
			if rt.Meter != nil {
				if err := rt.Meter.RecordUsage(ctx, *ev.Usage); err != nil {
					return nil, fmt.Errorf("session %s: metering usage: %w", id, err)
				}
			}
			continue
		}
		d, err := event.DecodeData(ev.Type, ev.Data)
		if err != nil {
			return nil, fmt.Errorf("session %s: decoding a buffered %s event: %w", id, ev.Type, err)
		}
		batch = append(batch, d)
	}
	if err := flush(); err != nil {
		return nil, fmt.Errorf("session %s: recording events: %w", id, err)
	}
	return rt, nil
}

// Place places a session on this worker: it returns the task queue its
// activities go to.
func (a *Activities) Place(context.Context) (string, error) { return a.Queue, nil }

// Definitions returns the schemas of the session's tools.
func (a *Activities) Definitions(ctx context.Context, id string) ([]sdk.ToolDefinition, error) {
	defer heartbeat(ctx)() // the session's plugins may start now
	rt, err := a.runtime(ctx, id, nil)
	if err != nil {
		return nil, err
	}
	return rt.Tools.Definitions(), nil
}

// Model sends one model request, its deltas recorded as they arrive.
func (a *Activities) Model(ctx context.Context, in ModelInput) (ModelOutput, error) {
	defer heartbeat(ctx)() // from the start: the session's plugins may start first
	rt, err := a.runtime(ctx, in.Session, in.Events)
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
	rt, err := a.runtime(ctx, in.Session, in.Events)
	if err != nil {
		return ToolOutput{}, err
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

// Decide runs or denies a pending action.
func (a *Activities) Decide(ctx context.Context, in DecideInput) (tools.ResultEvent, error) {
	defer heartbeat(ctx)()
	rt, err := a.runtime(ctx, in.Session, in.Events)
	if err != nil {
		return tools.ResultEvent{}, err
	}
	return rt.Decide(ctx, in.Decision)
}

// Record commits buffered events and, at the end, ends the session.
func (a *Activities) Record(ctx context.Context, in RecordInput) error {
	defer heartbeat(ctx)()
	rt, err := a.runtime(ctx, in.Session, in.Events)
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
