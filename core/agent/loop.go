package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/internal/gopool"
	"github.com/harness-agent/harness/sdk"
)

// Model answers one request; *llm.Client implements it.
type Model interface {
	Complete(ctx context.Context, req llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error)
}

// Tools runs tool calls; *tools.Executor implements it.
type Tools interface {
	Definitions() []sdk.ToolDefinition
	Run(ctx context.Context, call sdk.Call) tools.Outcome
}

// Recorder commits events; tools.SessionRecorder implements it.
type Recorder = tools.Recorder

// Meter records the usage of each request; *session.Store implements it.
type Meter interface {
	RecordUsage(ctx context.Context, u session.Usage) error
}

// Statuses of a finished run: the session's end statuses, which
// core/session defines and its store accepts (session.ended's status).
const (
	StatusCompleted   = session.StatusCompleted
	StatusLimit       = session.StatusLimit
	StatusError       = session.StatusError
	StatusInterrupted = session.StatusInterrupted
	StatusPending     = session.StatusPending
)

// Finish reasons the loop treats apart (besides tool calls).
const (
	// FinishRefusal: the model declined to answer; agent.response says so
	// with "refusal": true.
	FinishRefusal = "refusal"
	// FinishPaused: the provider paused a long turn (Anthropic's
	// pause_turn); the loop sends the turn back so the model continues it.
	FinishPaused = "pause_turn"
)

// Limits that stop a run (toolloop.limit_reached).
const (
	LimitMaxTurns     = "max_turns"
	LimitMaxTokens    = "max_tokens"
	LimitMaxUSD       = "max_usd"
	LimitMaxOutput    = "max_output"
	LimitRepeatedCall = "repeated_call"
	LimitContext      = "context"
)

// Config is one agent's loop settings.
type Config struct {
	Session  string
	Agent    string        // the agent's name, for the llm/stream hooks
	Bindings []llm.Binding // the agent's models, fallback order
	MaxTurns int           // default 50
	// MaxTokens and MaxUSD are the agent's budget; 0 is unlimited.
	MaxTokens int64
	MaxUSD    float64
	// ReadOnly reports whether a tool only reads: the read-only calls of a
	// turn run concurrently, the others one after another in call order.
	ReadOnly func(tool string) bool
	// Compactor keeps the context under the model's window; nil: never compact.
	Compactor *Compactor
	// CommitBeforeRequest makes every request wait until every earlier
	// event is committed: set when llm/stream hooks are configured, since
	// a hook is a plugin shown each request (its messages, the results
	// among them) and could act on what it sees. Without hooks a request
	// only reads the results, and their commit runs beside it.
	CommitBeforeRequest bool
	// DeferWait is how long an event the loop defers (llm.request, a
	// batch of deltas) waits for the events after it, so that they share
	// one commit; 0 is DefaultDeferWait.
	DeferWait time.Duration
}

// DefaultDeferWait is Config.DeferWait's default: a response done within
// it (a fast one) is committed with its llm.request, its deltas and its
// closing events in one transaction; a slow stream's deltas are shown at
// most this long after their batch closes (chunkWait).
const DefaultDeferWait = 10 * time.Millisecond

// Loop runs one agent's conversation. A Loop is used by one goroutine.
type Loop struct {
	cfg   Config
	model Model
	tools Tools
	rec   Recorder
	meter Meter

	turn       int
	tokens     int64
	cost       float64
	pending    map[string]bool // action ids awaiting approval
	prevPrompt prompt
	estimator  estimator
	recordErr  error // the first event the store could not commit
	// cutEstimated says the attempt that streamLimit just stopped is
	// metered with estimates: its llm.usage event says so.
	cutEstimated bool

	// held collects the events recorded while holding (see hold): the
	// closing events of a model request are committed together.
	heldMu  sync.Mutex
	holding bool
	held    []event.Data
}

// New returns a loop. Totals start at zero; Restore sets them on resume.
func New(cfg Config, model Model, tools Tools, rec Recorder, meter Meter) *Loop {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 50
	}
	if cfg.ReadOnly == nil {
		cfg.ReadOnly = func(string) bool { return false }
	}
	if cfg.DeferWait <= 0 {
		cfg.DeferWait = DefaultDeferWait
	}
	return &Loop{cfg: cfg, model: model, tools: tools, rec: rec, meter: meter, pending: map[string]bool{}, estimator: newEstimator()}
}

// Restore sets the counters of a resumed session.
func (l *Loop) Restore(turns int, tokens int64, cost float64, pending []string) {
	l.turn, l.tokens, l.cost = turns, tokens, cost
	for _, id := range pending {
		l.pending[id] = true
	}
}

// Outcome is how a run ended.
type Outcome struct {
	Status string
	Limit  string     // when Status is StatusLimit
	Err    *sdk.Error // when Status is StatusError or StatusInterrupted
	Text   string     // the final answer, when Status is completed or pending
}

// Totals are the counters of the session so far.
type Totals struct {
	Turns   int
	Tokens  int64
	CostUSD float64
	Pending int
}

// Totals returns the session's counters.
func (l *Loop) Totals() Totals {
	return Totals{Turns: l.turn, Tokens: l.tokens, CostUSD: l.cost, Pending: len(l.pending)}
}

// Resolved marks a pending action as decided (approved or denied since).
func (l *Loop) Resolved(actionID string) { delete(l.pending, actionID) }

// Run continues the conversation msgs (system prompt, task, ...) until the
// model answers without a tool call or something stops the run. It returns
// the conversation with every new message appended.
func (l *Loop) Run(ctx context.Context, msgs []sdk.Message) ([]sdk.Message, Outcome) {
	for {
		if out, stop := l.checkLimits(ctx); stop {
			return msgs, out
		}
		if l.cfg.Compactor != nil {
			var stop bool
			msgs, stop = l.cfg.Compactor.Maybe(ctx, msgs, keepingRecorder{l}, &l.estimator, usageObserver{&observer{loop: l, ctx: ctx}})
			if l.recordErr != nil { // context.compacted, or the background commit it waited for, failed
				return msgs, l.failed(ctx, l.recordErr)
			}
			if stop {
				return msgs, l.limit(ctx, LimitContext)
			}
		}
		if l.cfg.CommitBeforeRequest {
			l.keepErr(event.Flush(context.WithoutCancel(ctx), l.rec))
			if l.recordErr != nil {
				return msgs, l.failed(ctx, l.recordErr)
			}
		}
		l.turn++
		msg, err := l.request(ctx, msgs) // holds the request's closing events
		answered := err == nil && l.recordErr == nil && len(msg.ToolCalls) == 0 && msg.FinishReason != FinishPaused
		if answered {
			l.record(ctx, event.AgentResponse{Text: msg.Text, Refusal: msg.FinishReason == FinishRefusal})
		}
		var first []sdk.ToolCall
		if err == nil && l.recordErr == nil {
			first = l.firstGroup(msg.ToolCalls)
		}
		l.release(ctx, first) // one commit, before any tool runs
		if err == nil && l.recordErr != nil {
			err = l.recordErr
		}
		if err != nil {
			return msgs, l.failed(ctx, err)
		}
		msgs = append(msgs, msg.AsMessage())
		if len(msg.ToolCalls) == 0 && msg.FinishReason == FinishPaused {
			continue // the provider paused a long turn: sending it back resumes it
		}
		if answered {
			status := StatusCompleted
			if len(l.pending) > 0 {
				status = StatusPending
			}
			return msgs, Outcome{Status: status, Text: msg.Text}
		}
		outcomes := l.runTools(ctx, msg.ToolCalls)
		l.keepErr(l.failedCommit())
		if l.recordErr != nil { // the batch's results could not be committed
			return msgs, l.failed(ctx, l.recordErr)
		}
		for _, o := range outcomes {
			msgs = append(msgs, sdk.Message{Role: sdk.RoleTool, ToolCallID: o.Call.ID, Content: ToolContent(o.Result), IsError: o.Result.Err != nil})
			if o.Pending {
				l.pending[o.ActionID] = true
			}
		}
		if ctx.Err() != nil {
			return msgs, l.failed(ctx, ctx.Err())
		}
		for _, o := range outcomes {
			if o.StopRun != "" {
				return msgs, l.limit(ctx, o.StopRun)
			}
			if o.RecordErr != nil {
				return msgs, l.failed(ctx, fmt.Errorf("session store: %w", o.RecordErr))
			}
		}
	}
}

func (l *Loop) checkLimits(ctx context.Context) (Outcome, bool) {
	switch {
	case l.turn >= l.cfg.MaxTurns:
		return l.limit(ctx, LimitMaxTurns), true
	}
	if which := l.Budget().Spent(); which != "" {
		return l.limit(ctx, which), true
	}
	return Outcome{}, false
}

// BudgetCheck is the llm layer's pre-attempt budget hook: retries of a
// request must not run past the budget either.
func (l *Loop) BudgetCheck(context.Context) error { return l.Budget().Check() }

// Budget is what the session may still spend: the agent's budget and what
// it used so far. An engine that streams a request elsewhere (a Temporal
// activity) takes it along and applies the same rules there.
type Budget struct {
	MaxTokens int64   `json:",omitempty"`
	MaxUSD    float64 `json:",omitempty"`
	Tokens    int64   `json:",omitempty"`
	CostUSD   float64 `json:",omitempty"`
}

// Budget returns the session's budget as it stands.
func (l *Loop) Budget() Budget {
	return Budget{MaxTokens: l.cfg.MaxTokens, MaxUSD: l.cfg.MaxUSD, Tokens: l.tokens, CostUSD: l.cost}
}

// Spend returns b with one attempt's usage counted.
func (b Budget) Spend(u sdk.Usage, cost float64) Budget {
	b.Tokens += u.PromptTokens + u.CompletionTokens
	b.CostUSD += cost
	return b
}

// Check is the rule before each attempt: an error (budget_exceeded) once
// the budget is spent.
func (b Budget) Check() error {
	switch b.Spent() {
	case LimitMaxTokens:
		return sdk.Errorf(sdk.KindBudgetExceeded, "token budget of %d reached (%d used)", b.MaxTokens, b.Tokens)
	case LimitMaxUSD:
		return sdk.Errorf(sdk.KindBudgetExceeded, "budget of $%.4f reached ($%.4f spent)", b.MaxUSD, b.CostUSD)
	}
	return nil
}

// Spent names the limit of b that is used up (used at or over its
// maximum), tokens before dollars, or "".
func (b Budget) Spent() string {
	switch {
	case b.MaxTokens > 0 && b.Tokens >= b.MaxTokens:
		return LimitMaxTokens
	case b.MaxUSD > 0 && b.CostUSD >= b.MaxUSD:
		return LimitMaxUSD
	}
	return ""
}

// maxOutputSlack is how far past max_output (a quarter of it) the output
// estimate may go before the response is stopped: a provider stops at
// max_output itself, and the estimate (bytes / 4) is rough; only a server
// that ignores the limit gets that far.
const maxOutputSlack = 4

// StreamLimit is the rule after every chunk of a response: the response's
// output against max_output, and the session's totals with the response so
// far against the budget. It names the limit crossed, or "".
func (b Budget) StreamLimit(p llm.Progress) string {
	u := p.Usage
	switch {
	case p.MaxOutput > 0 && u.CompletionTokens > p.MaxOutput+p.MaxOutput/maxOutputSlack:
		return LimitMaxOutput
	case b.MaxTokens > 0 && b.Tokens+u.PromptTokens+u.CompletionTokens > b.MaxTokens:
		return LimitMaxTokens
	case b.MaxUSD > 0 && b.CostUSD+p.Cost > b.MaxUSD:
		return LimitMaxUSD
	}
	return ""
}

func (l *Loop) limit(ctx context.Context, which string) Outcome {
	l.record(ctx, event.LimitReached{Limit: which, Turns: l.turn, Tokens: l.tokens, CostUSD: l.cost})
	return Outcome{Status: StatusLimit, Limit: which}
}

func (l *Loop) failed(ctx context.Context, err error) Outcome {
	e := sdk.AsError(err)
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
		e = &sdk.Error{Kind: sdk.KindCanceled, Message: "interrupted"}
		return Outcome{Status: StatusInterrupted, Err: e}
	}
	if le, ok := llm.AsLimit(err); ok {
		return l.limit(ctx, le.Limit)
	}
	if e.Kind == sdk.KindBudgetExceeded {
		which := l.Budget().Spent()
		if which == "" {
			which = LimitMaxUSD
		}
		return l.limit(ctx, which)
	}
	l.record(ctx, event.Error{Kind: e.Kind, Message: e.Message})
	return Outcome{Status: StatusError, Err: e}
}

// streamLimit is asked after every chunk of a response (Budget.StreamLimit).
// Crossing a limit stops the response at once; its usage is then metered
// as estimated when some of it is.
func (l *Loop) streamLimit(p llm.Progress) string {
	limit := l.Budget().StreamLimit(p)
	if limit != "" {
		l.cutEstimated = p.Estimated
	}
	return limit
}

// request runs one model request and records its events.
func (l *Loop) request(ctx context.Context, msgs []sdk.Message) (llm.AssistantMessage, error) {
	defs := l.tools.Definitions()
	p := l.estimator.prompt(msgs, defs)
	size := p.size()
	model := ""
	if len(l.cfg.Bindings) > 0 {
		model = l.cfg.Bindings[0].Name
	}
	est := l.estimator.tokens(size)
	obs := &observer{loop: l, ctx: ctx, request: &event.LLMRequest{
		Turn:              l.turn,
		Model:             model,
		Messages:          len(msgs),
		PromptTokensEst:   est,
		SharedPrefixBytes: l.prevPrompt.sharedPrefix(p),
		PromptBytes:       size,
	}}
	l.prevPrompt = p
	msg, binding, err := l.model.Complete(ctx, llm.Request{Bindings: l.cfg.Bindings, Messages: withPinned(msgs), Tools: defs,
		PromptTokensEst: int64(est), Limit: l.streamLimit, Session: l.cfg.Session, Agent: l.cfg.Agent}, obs)
	l.hold() // the last deltas, the request's event if not yet, the message: one commit (Run releases)
	obs.flush()
	obs.ensureRequest()
	if err != nil {
		return msg, err
	}
	l.estimator.calibrate(size, msg.Usage.PromptTokens)
	calls := make([]event.Call, len(msg.ToolCalls))
	for i, c := range msg.ToolCalls {
		calls[i] = event.Call{ID: c.ID, Name: c.Name, Arguments: json.RawMessage(c.Arguments)}
	}
	l.record(ctx, event.AssistantMessage{
		Turn:            l.turn,
		Model:           binding.Name,
		Content:         msg.Text,
		Reasoning:       msg.Reasoning,
		ToolCalls:       calls,
		FinishReason:    msg.FinishReason,
		ReasoningBlocks: msg.ReasoningBlocks, // signatures to send back on resume
	})
	return msg, nil
}

// announcer is implemented by tools that record the calls of a turn up
// front (*tools.Executor): the event log then has them in the model's
// order even when they run concurrently.
type announcer interface {
	Announce(ctx context.Context, calls ...sdk.Call) error
}

// deferringTools is implemented by tools that can leave a call's last
// events (its tool.result) to the recorder's next commit
// (*tools.Executor).
type deferringTools interface {
	RunDeferred(ctx context.Context, call sdk.Call) tools.Outcome
}

// firstGroup returns the calls that start running together once the
// model's message is recorded: the read-only calls at the head (they run
// concurrently), or the first call. Their tool.call events go in the
// message's commit when the recorder defers (see release).
func (l *Loop) firstGroup(calls []sdk.ToolCall) []sdk.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	j := 1
	if l.cfg.ReadOnly(calls[0].Name) {
		for j < len(calls) && l.cfg.ReadOnly(calls[j].Name) {
			j++
		}
	}
	return calls[:j]
}

func sdkCalls(toolCalls []sdk.ToolCall) []sdk.Call {
	calls := make([]sdk.Call, len(toolCalls))
	for i, c := range toolCalls {
		calls[i] = sdk.Call{ID: c.ID, Tool: c.Name, Arguments: json.RawMessage(c.Arguments)}
	}
	return calls
}

// runTools runs a turn's calls: the read-only ones concurrently, the
// others one after another, results in call order. With a deferring
// recorder a call's tool.result is deferred: committed with the next
// call's tool.call, and the batch's last ones in the background. Nothing
// waits for the last results' commit: the
// next model request only reads them (a kill before they are committed
// leaves an unfinished turn, which --resume drops), and whatever acts on
// the world next (a tool call) is committed after them.
func (l *Loop) runTools(ctx context.Context, toolCalls []sdk.ToolCall) []tools.Outcome {
	out := make([]tools.Outcome, len(toolCalls))
	calls := sdkCalls(toolCalls)
	a, announces := l.tools.(announcer)
	run := l.tools.Run
	if dt, ok := l.tools.(deferringTools); ok {
		if _, ok := l.rec.(event.Deferrer); ok {
			run = dt.RunDeferred
			defer l.background(ctx) // the last results: the next call's tool.call takes the others
		}
	}
	var wg sync.WaitGroup
	for i, call := range calls {
		c := toolCalls[i]
		if announces && l.cfg.ReadOnly(c.Name) && (i == 0 || !l.cfg.ReadOnly(toolCalls[i-1].Name)) {
			// The read-only calls from here run concurrently: record them
			// first, in the model's order.
			j := i
			for j < len(calls) && l.cfg.ReadOnly(toolCalls[j].Name) {
				j++
			}
			if j-i > 1 {
				if err := a.Announce(ctx, calls[i:j]...); err != nil {
					l.keepErr(err) // Run stops on it: these calls must not run unrecorded
					wg.Wait()
					return out
				}
			}
		}
		if l.cfg.ReadOnly(c.Name) {
			wg.Add(1)
			gopool.Go(func() {
				defer wg.Done()
				out[i] = run(ctx, call)
			})
			continue
		}
		wg.Wait() // a writing call sees the effects of the reads before it
		out[i] = run(ctx, call)
	}
	wg.Wait()
	return out
}

// ToolContent is what the model reads of a result: its content, and for a
// failure the kind and message too.
func ToolContent(r sdk.Result) string {
	if r.Err == nil {
		return r.Content
	}
	head := fmt.Sprintf("error (%s): %s", r.Err.Kind, r.Err.Message)
	if r.Content == "" || r.Content == r.Err.Error() || r.Content == r.Err.Message {
		return head
	}
	return head + "\n" + r.Content
}

// record commits an event, or while holding adds it to the held ones. The
// first failure is kept: the run stops with it after the current request,
// rather than go on unrecorded.
func (l *Loop) record(ctx context.Context, d event.Data) {
	if !l.heldIfHolding(d) {
		l.keepErr(l.rec.Record(context.WithoutCancel(ctx), d))
	}
}

// deferRecord is record for an event nothing acts on the world after
// (llm.request, assistant.chunk): held while holding, else deferred when
// the recorder defers (committed in the background within
// Config.DeferWait, or by a commit that comes before), else committed now.
func (l *Loop) deferRecord(ctx context.Context, d event.Data) {
	if !l.heldIfHolding(d) {
		l.keepErr(event.Defer(context.WithoutCancel(ctx), l.rec, d))
		if b, ok := l.rec.(backgrounder); ok {
			b.BackgroundWithin(context.WithoutCancel(ctx), l.cfg.DeferWait)
		}
	}
}

// background starts committing what the recorder holds back, without
// waiting, when it can (backgrounder).
func (l *Loop) background(ctx context.Context) {
	if b, ok := l.rec.(backgrounder); ok {
		b.Background(context.WithoutCancel(ctx))
	}
}

// queueRecord is deferRecord for an event a commit of the loop follows
// soon (an attempt's last events: the request's closing commit, or an
// llm.retry): no background commit takes it (queuer), so it goes in that
// one instead of one of its own.
func (l *Loop) queueRecord(ctx context.Context, d event.Data) {
	if l.heldIfHolding(d) {
		return
	}
	if q, ok := l.rec.(queuer); ok {
		q.Queue(context.WithoutCancel(ctx), d)
		return
	}
	l.keepErr(event.Defer(context.WithoutCancel(ctx), l.rec, d))
}

// heldIfHolding adds d to the held events while holding, and says so.
func (l *Loop) heldIfHolding(d event.Data) bool {
	l.heldMu.Lock()
	defer l.heldMu.Unlock()
	if l.holding {
		l.held = append(l.held, d)
	}
	return l.holding
}

// backgrounder is implemented by a recorder that can commit deferred
// events in the background (*tools.StoreRecorder).
type backgrounder interface {
	Background(ctx context.Context)
	BackgroundWithin(ctx context.Context, d time.Duration)
}

// queuer is implemented by a recorder that commits deferred events in the
// background (*tools.StoreRecorder): Queue defers an event without
// starting a commit, for one the caller makes next.
type queuer interface {
	Queue(ctx context.Context, d event.Data)
}

// failer is implemented by a recorder that commits deferred events in the
// background (*tools.StoreRecorder): Failed returns a commit's failure
// already known, without waiting for a commit under way.
type failer interface{ Failed() error }

// failedCommit is the recorder's background failure known so far.
func (l *Loop) failedCommit() error {
	if f, ok := l.rec.(failer); ok {
		return f.Failed()
	}
	return nil
}

// keepingRecorder records through the loop's recorder and keeps the first
// failure (keepErr) for a caller that does not return it (the Compactor):
// a commit after a failed background one returns that failure once, and
// the run must stop with it.
type keepingRecorder struct{ l *Loop }

func (k keepingRecorder) Record(ctx context.Context, d event.Data) error {
	err := k.l.rec.Record(ctx, d)
	k.l.keepErr(err)
	return err
}

func (l *Loop) keepErr(err error) {
	if err != nil && l.recordErr == nil {
		l.recordErr = &sdk.Error{Kind: sdk.KindInternal, Message: err.Error()}
	}
}

// hold makes record collect events until release. Nothing between them
// acts on the world (no tool runs), so committing the group at release
// keeps the crash guarantee: every event is committed before it is shown,
// and before anything that follows it happens.
func (l *Loop) hold() {
	l.heldMu.Lock()
	defer l.heldMu.Unlock()
	l.holding = true
}

// release commits the held events in one transaction (when the recorder
// can) and stops holding. The tool.call events of first, the calls about
// to run, join that transaction when the recorder defers and the tools
// announce: they are recorded before any of them runs, as they would be
// one by one.
func (l *Loop) release(ctx context.Context, first []sdk.ToolCall) {
	l.heldMu.Lock()
	held := l.held
	l.holding, l.held = false, nil
	l.heldMu.Unlock()
	ctx = context.WithoutCancel(ctx)
	_, defers := l.rec.(event.Deferrer)
	a, announces := l.tools.(announcer)
	if defers && announces && len(first) > 0 {
		for _, d := range held {
			l.queueRecord(ctx, d) // Announce's commit takes them
		}
		l.keepErr(a.Announce(ctx, sdkCalls(first)...)) // commits the held events and the calls
		return
	}
	if len(held) > 0 {
		l.keepErr(event.RecordAll(ctx, l.rec, held...))
	}
	l.keepErr(event.Flush(ctx, l.rec)) // the request's usage, when nothing followed it
}

// observer records the llm layer's events for one request. Deltas are
// committed as assistant.chunk events in batches: per block, at most
// chunkWait after the first delta of a batch or chunkBytes long, and
// always before any other event, so the order of events is kept while a
// 400-delta answer costs tens of commits instead of hundreds.
type observer struct {
	loop *Loop
	ctx  context.Context
	// request is the data of the request's llm.request event, recorded
	// when the llm layer reports the request (OnRequest: once per model
	// tried, after the llm/stream hooks let it go) or, from a model that
	// does not, before anything else it reports. nil for a side request.
	request   *event.LLMRequest
	requested bool

	mu      sync.Mutex // the stream's goroutine and the flush timer
	block   int
	kind    string
	pending strings.Builder
	since   time.Time
	timer   *time.Timer
	// closing: the attempt has ended (OnUsage); its last events wait for
	// the commit that follows (see queueRecord).
	closing bool
}

const (
	chunkWait  = 40 * time.Millisecond
	chunkBytes = 1024
)

// OnRequest records an llm.request event for each model tried: a fallback
// is a request of its own.
func (o *observer) OnRequest(info llm.RequestInfo) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.request == nil {
		return
	}
	o.flushLocked()
	data := *o.request
	data.Model = info.Binding.Name
	if info.Fallback > 1 {
		data.Fallback = info.Fallback
	}
	data.HookMetadata = info.Metadata
	o.loop.deferRecord(o.ctx, data)
	o.requested = true
}

// ensureRequest records the request's llm.request event unless it was.
func (o *observer) ensureRequest() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ensureRequestLocked()
}

func (o *observer) ensureRequestLocked() {
	if o.request == nil || o.requested {
		return
	}
	o.requested = true
	o.loop.deferRecord(o.ctx, *o.request)
}

func (o *observer) OnRetry(attempt int, kind sdk.ErrorKind, delay time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ensureRequestLocked()
	o.flushLocked()
	o.loop.record(o.ctx, event.LLMRetry{Attempt: attempt, Kind: kind, DelayMS: delay.Milliseconds()})
}

func (o *observer) OnChunk(block int, kind, delta string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ensureRequestLocked()
	if o.pending.Len() > 0 && (block != o.block || kind != o.kind) {
		o.flushLocked()
	}
	if o.pending.Len() == 0 {
		o.block, o.kind, o.since = block, kind, time.Now()
		o.timer = time.AfterFunc(chunkWait, o.flush)
	}
	o.pending.WriteString(delta)
	if o.pending.Len() >= chunkBytes || time.Since(o.since) >= chunkWait {
		o.flushLocked()
	}
}

// flush commits the deltas waiting to be recorded.
func (o *observer) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

func (o *observer) flushLocked() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	if o.pending.Len() == 0 {
		return
	}
	d := event.AssistantChunk{Block: o.block, Kind: o.kind, Delta: o.pending.String()}
	if o.closing {
		o.loop.queueRecord(o.ctx, d)
	} else {
		o.loop.deferRecord(o.ctx, d)
	}
	o.pending.Reset()
}

// OnUsage ends an attempt: its last deltas, its llm.usage event and its
// usage row wait for the commit that follows (queueRecord), which is the
// request's closing one, or the llm.retry of a failed attempt. The row is
// metered first: the recorder commits it with the event queued next.
func (o *observer) OnUsage(b llm.Binding, u sdk.Usage, cost float64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ensureRequestLocked()
	o.closing = true
	defer func() { o.closing = false }()
	o.flushLocked()
	l := o.loop
	l.tokens += u.PromptTokens + u.CompletionTokens
	l.cost += cost
	if l.meter != nil {
		_ = l.meter.RecordUsage(context.WithoutCancel(o.ctx), session.Usage{
			Session: l.cfg.Session, Turn: l.turn, Model: b.Name,
			PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
			CacheHitTokens: u.CacheHitTokens, CacheMissTokens: u.CacheMissTokens,
			ReasoningTokens: u.ReasoningTokens, CostUSD: cost,
		})
	}
	l.queueRecord(o.ctx, event.LLMUsage{
		Turn:             l.turn,
		Model:            b.Name,
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		CacheHitTokens:   u.CacheHitTokens,
		CacheMissTokens:  u.CacheMissTokens,
		ReasoningTokens:  u.ReasoningTokens,
		CacheWriteTokens: u.CacheWriteTokens,
		CostUSD:          cost,
		Estimated:        l.cutEstimated,
	})
	l.cutEstimated = false
}

// usageObserver meters a side request (the summarizer's) without recording
// its chunks into the conversation's events.
type usageObserver struct{ *observer }

func (usageObserver) OnChunk(int, string, string) {}

var _ llm.RequestObserver = (*observer)(nil)
