package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/sdk"
)

// DefaultTimeout is the deadline of a call to a tool that sets none.
const DefaultTimeout = 60 * time.Second

// DefaultQuietGrace is how long a read that cannot act on the world
// (quietReads) runs before its tool.call, and what was held before it, is
// committed in the background: a read that ends sooner has its tool.call
// committed with its tool.result, in one transaction after it, and no
// commit competes with it for the CPU while it runs. A slower read's
// tool.call is shown after this long.
const DefaultQuietGrace = 50 * time.Millisecond

// Options configure an Executor: one agent in one session.
type Options struct {
	Session   string   // for hook events
	Agent     string   // for hook events
	Whitelist []string // the agent's tools; "NAME__*" for every tool of MCP server NAME
	// Approver is the tools/approve phase (core/approval's pipeline). Required.
	Approver Approver
	Recorder Recorder // nil drops events
	Hooks    []Hook
	Logger   hclog.Logger
	// OutputCap bounds a result's content (head + tail); default DefaultOutputCap.
	OutputCap int
	// ProgressStoreBytes bounds the tool.progress output one call records
	// (head and tail); 0 means DefaultProgressStoreBytes, negative none.
	ProgressStoreBytes int64
	// RepeatLimit is the count of identical calls from which they are not
	// executed, StopLimit the count that stops the run; defaults
	// DefaultRepeatLimit and DefaultStopLimit.
	RepeatLimit, StopLimit int
	// DefaultTimeout is the deadline of tools that set none; default DefaultTimeout.
	DefaultTimeout time.Duration
	// Secrets (the configuration's API keys) are replaced by Redacted in
	// every result and progress line, before anyone sees it.
	Secrets []string
	// QuietGrace is how long a quiet read runs before its tool.call is
	// committed without waiting for its result; default DefaultQuietGrace.
	QuietGrace time.Duration
}

// Outcome is what the agent loop gets back for one call.
type Outcome struct {
	Call     sdk.Call // arguments canonical once they parsed
	Result   sdk.Result
	Duration time.Duration
	// StopRun is non-empty when the run must stop ("repeated_call").
	StopRun string
	// Pending says the call awaits a person's approval as ActionID.
	Pending  bool
	ActionID string
	// RecordErr is the first event that could not be recorded: a failure of
	// the session store, not of the tool.
	RecordErr error
}

// Executor runs calls through the phases. It is safe for concurrent use:
// the calls of one turn may run at once.
type Executor struct {
	reg       *Registry
	whitelist []string
	opts      Options
	approver  Approver
	rec       Recorder
	hooks     hookSet
	log       hclog.Logger
	repeats   repeats
	redact    *redactor // nil when there is no secret

	announced sync.Map // call id -> true: tool.call recorded by Announce
}

// NewExecutor returns an executor of reg's tools for one agent.
func NewExecutor(reg *Registry, opts Options) (*Executor, error) {
	if reg == nil {
		return nil, errors.New("tools: an executor needs a registry")
	}
	if opts.Approver == nil {
		return nil, errors.New("tools: an executor needs an approver for the tools/approve phase")
	}
	if opts.Recorder == nil {
		opts.Recorder = event.Discard
	}
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	if opts.OutputCap <= 0 {
		opts.OutputCap = DefaultOutputCap
	}
	switch {
	case opts.ProgressStoreBytes == 0:
		opts.ProgressStoreBytes = DefaultProgressStoreBytes
	case opts.ProgressStoreBytes < 0:
		opts.ProgressStoreBytes = 0
	}
	if opts.RepeatLimit <= 0 {
		opts.RepeatLimit = DefaultRepeatLimit
	}
	if opts.StopLimit <= 0 {
		opts.StopLimit = DefaultStopLimit
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.QuietGrace <= 0 {
		opts.QuietGrace = DefaultQuietGrace
	}
	return &Executor{
		redact:    newRedactor(opts.Secrets),
		reg:       reg,
		whitelist: slices.Clone(opts.Whitelist),
		opts:      opts,
		approver:  opts.Approver,
		rec:       opts.Recorder,
		hooks:     newHookSet(opts.Hooks),
		log:       opts.Logger.Named("tools"),
	}, nil
}

// Definitions returns the schemas of the agent's tools, for the model.
func (e *Executor) Definitions() []sdk.ToolDefinition {
	return e.reg.Definitions(e.whitelist)
}

// CountPrior counts calls made earlier in the session (a resumed run) for
// the loop guard, without running them.
func (e *Executor) CountPrior(calls ...sdk.Call) {
	for _, c := range calls {
		if args, _, err := canonical(c.Arguments); err == nil {
			e.repeats.add(c.Tool, args)
		}
	}
}

// Announce records the tool.call event of each call now, in the order
// given (the model's), so that calls that then run concurrently appear in
// the event log in the order the model made them; Run does not record them
// again. The error is the recorder's: the calls must not run then.
func (e *Executor) Announce(ctx context.Context, calls ...sdk.Call) error {
	var evs []event.Data
	for _, call := range calls {
		if _, dup := e.announced.LoadOrStore(call.ID, true); dup {
			continue
		}
		evs = append(evs, CallEvent(call))
	}
	record := event.RecordAll // one commit for the calls of the group, before any of them runs
	if rel, ok := e.rec.(releaser); ok && e.quietReads(calls...) {
		// Nothing of the group acts on the world: its calls run before
		// their tool.call events (and the model's message queued before
		// them) are committed, with the first result or in the background
		// once the grace is up.
		record = func(ctx context.Context, rec Recorder, ds ...event.Data) error {
			return e.inBackground(ctx, rec, rel, ds...)
		}
	}
	if err := record(context.WithoutCancel(ctx), e.rec, evs...); err != nil {
		e.log.Error("event not recorded", "type", event.TypeToolCall, "calls", len(evs), "error", err)
		return fmt.Errorf("record the tool.call events of %d calls: %w", len(evs), err)
	}
	return nil
}

// releaser is a recorder that can commit what it holds in the background
// (*StoreRecorder), now or after a while unless it is released or commits
// before, and returns a background commit's failure (Failed).
type releaser interface {
	Release(ctx context.Context)
	ReleaseAfter(ctx context.Context, d time.Duration)
	Failed() error
}

// inBackground queues ds on rec, to be committed in the background (rel
// is rec as a releaser) once the quiet grace is up, or with the first
// result of the calls they announce (run releases rec then), unless a
// background commit is known to have failed already: then it returns that
// failure and queues nothing.
func (e *Executor) inBackground(ctx context.Context, rec Recorder, rel releaser, ds ...event.Data) error {
	if err := rel.Failed(); err != nil {
		return err
	}
	for _, d := range ds {
		event.Defer(ctx, rec, d)
	}
	rel.ReleaseAfter(ctx, e.opts.QuietGrace)
	return nil
}

// quietReads reports whether none of calls can act on the world, so that
// they may run while their tool.call events are being committed: each is
// a tool of the core or of a plugin that declares neither writes, executes
// nor network (the approval pipeline runs such tools directly, without an
// action or a question), and no hook sees any phase (a hook is a plugin
// that could act on what it is shown). A kill before the commit loses the
// record of reads that changed nothing; every later event, and anything
// that acts on the world, still waits for it.
func (e *Executor) quietReads(calls ...sdk.Call) bool {
	if len(e.hooks) > 0 {
		return false
	}
	for _, c := range calls {
		ent := e.reg.entry(c.Tool)
		if ent == nil || !e.visible(c.Tool) || ent.Origin == OriginMCP ||
			ent.Spec.Writes || ent.Spec.Executes || ent.Spec.Network {
			return false
		}
	}
	return true
}

// CallEvent is the tool.call event of call, as Run and Announce record it.
func CallEvent(call sdk.Call) event.ToolCall {
	return event.ToolCall{CallID: call.ID, Tool: call.Tool, Arguments: argumentsJSON(call.Arguments)}
}

// Announced says the caller recorded the tool.call events of these calls
// (a Temporal activity commits it once, however often it is retried): Run
// does not record them again.
func (e *Executor) Announced(ids ...string) {
	for _, id := range ids {
		e.announced.Store(id, true)
	}
}

// Run runs one call through every phase and records its events.
func (e *Executor) Run(ctx context.Context, call sdk.Call) Outcome {
	return e.run(ctx, call, e.rec, "", false)
}

// RunDeferred is Run, except that the events recorded once the tool has
// run (its last tool.progress lines and its tool.result) are deferred
// (event.Defer): they are committed, and shown, with the next event the
// recorder commits. A call that cannot act on the world (quietReads) runs
// before its tool.call is committed, when the recorder can (releaser):
// the tool.call goes with the tool.result, in one background commit once
// the call is done, or in the background once Options.QuietGrace is up.
// The caller flushes the recorder once the batch of calls it runs is
// done; the agent loop does.
func (e *Executor) RunDeferred(ctx context.Context, call sdk.Call) Outcome {
	return e.run(ctx, call, e.rec, "", true)
}

// RunApproved runs the call of action actionID, which a person approved
// after its run ended (`harness actions approve`): every phase but approve,
// without the loop guard and without a new tool.call event. Events go to
// rec (nil: the executor's recorder); recording the action's result is the
// caller's business.
func (e *Executor) RunApproved(ctx context.Context, call sdk.Call, actionID string, rec Recorder) Outcome {
	if rec == nil {
		rec = e.rec
	}
	return e.run(ctx, call, rec, actionID, false)
}

// callRun is the state of one call.
type callRun struct {
	e        *Executor
	rec      Recorder
	call     sdk.Call
	tool     *entry
	actionID string
	executed bool
	stopRun  string
	pending  bool

	// deferring: the tool has run and the caller asked for its last events
	// to be deferred (RunDeferred).
	deferLast bool
	deferring bool

	mu        sync.Mutex
	recordErr error
}

// run runs a call; approvedAction is the id of an action approved before
// (RunApproved), "" for a call of the running turn.
func (e *Executor) run(ctx context.Context, call sdk.Call, rec Recorder, approvedAction string, deferLast bool) Outcome {
	start := time.Now()
	approved := approvedAction != ""
	c := &callRun{e: e, rec: rec, call: call, actionID: approvedAction, deferLast: deferLast}
	rel, quiet := rec.(releaser)
	quiet = quiet && deferLast && !approved && e.quietReads(call)
	if _, announced := e.announced.LoadAndDelete(call.ID); !approved && !announced {
		if quiet {
			if err := e.inBackground(context.WithoutCancel(ctx), rec, rel, CallEvent(call)); err != nil {
				c.noteRecordErr(fmt.Errorf("record %s of call %s: %w", event.TypeToolCall, call.ID, err))
			}
		} else {
			c.record(ctx, CallEvent(call))
		}
		if c.recordErr != nil {
			// Its tool.call, or an event before it, is not in the store:
			// the call must not act on the world, so it does not run.
			return Outcome{Call: call, Duration: time.Since(start), RecordErr: c.recordErr,
				Result: sdk.Result{Err: &sdk.Error{Kind: sdk.KindInternal, Message: c.recordErr.Error()}}}
		}
	}
	res := normalize(call.Tool, c.phases(ctx, approved), e.opts.OutputCap)
	e.observe(ctx, c.event(PhaseNormalize, &res))

	out := Outcome{Call: c.call, Result: res, Duration: time.Since(start), StopRun: c.stopRun, Pending: c.pending, ActionID: c.actionID}
	ev := out.ResultEvent()
	if c.executed && c.actionID != "" && !approved {
		if err := e.approver.Executed(context.WithoutCancel(ctx), c.actionID, ev); err != nil {
			c.noteRecordErr(err)
		}
	}
	c.deferring = c.deferLast
	c.record(ctx, ev)
	if quiet {
		// The read is done: its tool.call (unless the grace was up) and
		// its result go in one background commit.
		rel.Release(context.WithoutCancel(ctx))
	}
	e.observe(ctx, c.event(sdk.PhaseResult, &res))
	out.RecordErr = c.recordErr
	return out
}

// phases runs find to post-execute and returns the result, not yet
// normalized.
func (c *callRun) phases(ctx context.Context, approved bool) sdk.Result {
	e := c.e
	fail := func(err *sdk.Error) sdk.Result { return sdk.Result{Err: err} }

	ent, err := e.find(c.call.Tool)
	if err != nil {
		return fail(err)
	}
	c.tool = ent
	e.observe(ctx, c.event(PhaseFind, nil))

	args, value, perr := canonical(c.call.Arguments)
	if perr != nil {
		return fail(invalidArgs(c.call.Tool, perr.Error()))
	}
	c.call.Arguments = args
	if !approved {
		switch n := e.repeats.add(c.call.Tool, args); {
		case n >= e.opts.StopLimit:
			c.stopRun = StopRepeatedCall
			return fail(repeatedCall(c.call.Tool, n, true))
		case n >= e.opts.RepeatLimit:
			return fail(repeatedCall(c.call.Tool, n, false))
		}
	}
	if msg := validate(ent.schema, value); msg != "" {
		return fail(invalidArgs(c.call.Tool, msg))
	}
	timeout := e.opts.DefaultTimeout
	if ent.Timeout != nil {
		if d := ent.Timeout(args); d > 0 {
			timeout = d
		}
	}
	e.observe(ctx, c.event(PhasePrepare, nil))
	if ctx.Err() != nil {
		return fail(sdk.Errorf(sdk.KindCanceled, "%s: the call was canceled before it ran", c.call.Tool))
	}

	if d := e.decide(ctx, c.event(sdk.PhasePreExecute, nil)); d.Decision == sdk.DecisionDeny {
		return fail(sdk.Errorf(sdk.KindDenied, "%s: denied by hook %q before it ran: %s. Do not retry this call as it is.",
			c.call.Tool, d.Hook, orDefault(d.Reason, "no reason given")))
	}

	run := c.call
	if !approved {
		a := e.approver.Approve(ctx, ApprovalRequest{Call: c.call, Tool: ent.Tool, Hooks: c.approveHooks})
		c.actionID, c.pending = a.ActionID, a.Pending
		if !a.Run {
			if a.Err == nil {
				a.Err = sdk.Errorf(sdk.KindDenied, "%s: the call was not approved", c.call.Tool)
			}
			return fail(a.Err)
		}
		if a.Arguments != nil {
			run.Arguments = a.Arguments
		}
	} else if p, ok := e.approver.(Pinner); ok {
		if args := p.Pin(ApprovalRequest{Call: c.call, Tool: ent.Tool}); args != nil {
			run.Arguments = args
		}
	}

	e.observe(ctx, c.event(PhaseExecute, nil))
	xctx, cancel := context.WithTimeout(withRecorder(ctx, c.rec), timeout)
	defer cancel()
	keeper := newProgressKeeper(e.opts.ProgressStoreBytes)
	res, xerr := execute(xctx, ent.Source, run, c.progress(ctx, keeper))
	c.deferring = c.deferLast // the tool has run: what follows may wait
	for _, ch := range keeper.flush() {
		c.record(ctx, event.ToolProgress{CallID: c.call.ID, Stream: ch.stream, Text: ch.text})
	}
	c.executed = true
	res = e.redact.result(sourceResult(xctx, c.call.Tool, res, xerr, timeout))
	e.observe(ctx, c.event(sdk.PhasePostExecute, &res))
	return res
}

// execute runs the source, turning a panic of an in-process source into an
// internal error.
func execute(ctx context.Context, src Source, call sdk.Call, progress sdk.Progress) (res sdk.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = sdk.Result{}, sdk.Errorf(sdk.KindInternal, "%s panicked: %v", call.Tool, r)
		}
	}()
	return src.Execute(ctx, call, progress)
}

// find returns the tool if the agent may see it.
func (e *Executor) find(name string) (*entry, *sdk.Error) {
	if ent := e.reg.entry(name); ent != nil && e.visible(name) {
		return ent, nil
	}
	avail := e.reg.Visible(e.whitelist)
	list := "none"
	if len(avail) > 0 {
		list = strings.Join(avail, ", ")
	}
	return nil, sdk.Errorf(sdk.KindToolNotFound, "there is no tool %q available to you; the tools you can call are: %s", name, list)
}

// Visible reports whether the agent may call the tool: it is registered
// and whitelisted.
func (e *Executor) Visible(name string) bool {
	return e.reg.entry(name) != nil && e.visible(name)
}

func (e *Executor) visible(name string) bool {
	return slices.ContainsFunc(e.whitelist, func(w string) bool { return config.Selects(w, name) })
}

// approveHooks runs the tools/approve hooks for the pipeline.
func (c *callRun) approveHooks(ctx context.Context, kind, summary string) HookDecision {
	ev := c.event(sdk.PhaseApprove, nil)
	ev.ActionKind, ev.Summary = kind, summary
	return c.e.decide(ctx, ev)
}

// progress records a call's output as it comes, within keeper's budget.
func (c *callRun) progress(ctx context.Context, keeper *progressKeeper) sdk.Progress {
	return func(stream, text string) {
		if now := keeper.add(stream, text); now != "" {
			c.record(ctx, event.ToolProgress{CallID: c.call.ID, Stream: stream, Text: c.e.redact.text(now)})
		}
	}
}

// event is the hook event of a phase; res is the result where there is one.
func (c *callRun) event(phase string, res *sdk.Result) sdk.HookEvent {
	ev := sdk.HookEvent{
		Phase: phase, SessionID: c.e.opts.Session, Agent: c.e.opts.Agent,
		CallID: c.call.ID, Tool: c.call.Tool, Arguments: c.call.Arguments,
	}
	if res != nil {
		ev.Result, ev.ResultErr = res.Content, res.Err
	}
	return ev
}

// record writes an event; a canceled call still gets its events.
func (c *callRun) record(ctx context.Context, d event.Data) {
	typ := d.EventType()
	record := c.rec.Record
	if c.deferring {
		record = func(ctx context.Context, d event.Data) error { return event.Defer(ctx, c.rec, d) }
	}
	if err := record(context.WithoutCancel(ctx), d); err != nil {
		c.e.log.Error("event not recorded", "type", typ, "call", c.call.ID, "error", err)
		c.noteRecordErr(fmt.Errorf("record %s of call %s: %w", typ, c.call.ID, err))
	}
}

func (c *callRun) noteRecordErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recordErr == nil {
		c.recordErr = err
	}
}

func invalidArgs(tool, msg string) *sdk.Error {
	return sdk.Errorf(sdk.KindInvalidArgs, "%s: invalid arguments: %s", tool, msg)
}

// argumentsJSON is the arguments as a JSON value for tool.call: the JSON as
// sent, or a string when it is not JSON.
func argumentsJSON(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(args) {
		return args
	}
	s, _ := json.Marshal(string(args))
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
