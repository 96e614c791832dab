package telemetry

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
)

// Attribute keys: the GenAI semantic conventions where they have a name,
// harness.* for the rest.
const (
	keyOperation      = "gen_ai.operation.name"
	keySystem         = "gen_ai.system"
	keyProvider       = "gen_ai.provider.name"
	keyRequestModel   = "gen_ai.request.model"
	keyInputTokens    = "gen_ai.usage.input_tokens"
	keyOutputTokens   = "gen_ai.usage.output_tokens"
	keyCacheRead      = "gen_ai.usage.cache_read.input_tokens"
	keyFinishReasons  = "gen_ai.response.finish_reasons"
	keyAgentName      = "gen_ai.agent.name"
	keyConversationID = "gen_ai.conversation.id"
	keyToolName       = "gen_ai.tool.name"
	keyToolCallID     = "gen_ai.tool.call.id"
	keyToolArguments  = "gen_ai.tool.call.arguments"
	keyToolResult     = "gen_ai.tool.call.result"
	keyTokenType      = "gen_ai.token.type"
	keyErrorType      = "error.type"

	keyBinding       = "harness.model"
	keyTurn          = "harness.turn"
	keyCacheMiss     = "harness.usage.cache_miss_tokens"
	keyReasoning     = "harness.usage.reasoning_tokens"
	keyCost          = "harness.cost_usd"
	keyDecision      = "harness.approval.decision"
	keyDecidedBy     = "harness.approval.by"
	keyRule          = "harness.approval.rule"
	keyActionKind    = "harness.action.kind"
	keyActionID      = "harness.action.id"
	keyToolOK        = "harness.tool.ok"
	keyOutcome       = "harness.tool.outcome"
	keyStatus        = "harness.session.status"
	keyTokens        = "harness.session.tokens"
	keyTurns         = "harness.session.turns"
	keyLimit         = "harness.limit"
	keyContent       = "harness.content"
	keyHarnessTokens = "harness.token.type"
)

// Observer turns one session's events, in seq order, into spans and metric
// points. It is safe for concurrent use; events must still arrive in order.
type Observer struct {
	tracer  trace.Tracer
	content bool
	models  func(string) (system, id string)
	m       instruments

	mu       sync.Mutex
	sessID   string
	session  trace.Span
	sessCtx  context.Context
	turn     trace.Span
	turnNo   int
	turnCtx  context.Context
	request  trace.Span
	reqStart time.Time
	now      time.Time            // the time of the event being observed
	reqAttrs []attribute.KeyValue // the request's model attributes, for metrics
	usage    usageSums
	tools    map[string]trace.Span
}

type usageSums struct{ in, out, hit, miss, reasoning int64 }

type instruments struct {
	tokenUsage metric.Int64Histogram
	duration   metric.Float64Histogram
	tokens     metric.Int64Counter
	cost       metric.Float64Counter
	toolCalls  metric.Int64Counter
	approvals  metric.Int64Counter
}

// NewObserver maps events to tracer's spans and meter's instruments.
// content exports text (the task, messages, tool arguments and results);
// models maps a binding name to its gen_ai.system and model id (nil: the
// name is the id and the system is unknown).
func NewObserver(tracer trace.Tracer, meter metric.Meter, content bool, models func(string) (string, string)) *Observer {
	if models == nil {
		models = func(name string) (string, string) { return "", name }
	}
	o := &Observer{tracer: tracer, content: content, models: models, tools: map[string]trace.Span{}}
	// Instrument creation fails only on invalid names; these are constants.
	o.m.tokenUsage, _ = meter.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens used per model request, by gen_ai.token.type (input, output)"))
	o.m.duration, _ = meter.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a model request to its complete answer"))
	o.m.tokens, _ = meter.Int64Counter("harness.tokens", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens by harness.token.type: cache_hit, cache_miss, output, reasoning"))
	o.m.cost, _ = meter.Float64Counter("harness.cost", metric.WithUnit("USD"),
		metric.WithDescription("Cost of model requests as metered against the budget"))
	o.m.toolCalls, _ = meter.Int64Counter("harness.tool.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls by tool and outcome (ok, or the error kind)"))
	o.m.approvals, _ = meter.Int64Counter("harness.approvals", metric.WithUnit("{decision}"),
		metric.WithDescription("Approval decisions by decision and by whom"))
	return o
}

// Wrap returns a sink that gives each event to o and then to next (nil: o
// alone). A nil Observer returns next unchanged: telemetry off costs
// nothing per event.
func (o *Observer) Wrap(next func(session.Event)) func(session.Event) {
	if o == nil {
		return next
	}
	return func(ev session.Event) {
		o.Observe(ev)
		if next != nil {
			next(ev)
		}
	}
}

// Observe maps one event.
func (o *Observer) Observe(ev session.Event) {
	data, err := event.Decode(ev)
	if err != nil {
		return // not an event of the documented shape: nothing to map
	}
	at := trace.WithTimestamp(ev.Time)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.now = ev.Time
	switch d := data.(type) {
	case event.SessionStarted:
		if o.session == nil {
			o.startSession(ev, d.Agent, at)
		}
		if o.content {
			o.session.SetAttributes(attribute.String(keyContent+".task", d.Task))
		}
		return
	case event.SessionResumed:
		if o.session == nil {
			o.startSession(ev, d.Agent, at)
		}
		return
	}
	if o.session == nil {
		o.startSession(ev, "", at) // a stream picked up mid-way still gets a root
	}
	switch d := data.(type) {
	case event.UserMessage:
		o.endTurn(at)
		o.session.AddEvent(ev.Type, at, trace.WithAttributes(o.text(keyContent, d.Text)...))
	case event.LLMRequest:
		o.startRequest(ev, d, at)
	case event.LLMRetry:
		if o.request != nil {
			o.request.AddEvent(ev.Type, at, trace.WithAttributes(attribute.Int("harness.attempt", d.Attempt),
				attribute.String(keyErrorType, string(d.Kind)), attribute.Int64("harness.delay_ms", d.DelayMS)))
		}
	case event.LLMUsage:
		o.observeUsage(d)
	case event.AssistantMessage:
		o.endRequest(d, at)
	case event.ToolCall:
		o.startTool(d, at)
	case event.ActionProposed:
		if s := o.tools[d.CallID]; s != nil {
			s.SetAttributes(attribute.String(keyActionID, d.ActionID), attribute.String(keyActionKind, d.Kind))
			s.SetAttributes(o.text(keyContent+".summary", d.Summary)...)
		}
	case event.ActionDecided:
		o.m.approvals.Add(context.Background(), 1, metric.WithAttributes(attribute.String(keyDecision, d.Decision), attribute.String(keyDecidedBy, d.By)))
		if s := o.tools[d.CallID]; s != nil {
			s.SetAttributes(attribute.String(keyDecision, d.Decision), attribute.String(keyDecidedBy, d.By), attribute.String(keyRule, d.Rule))
		}
	case event.ToolResult:
		o.endTool(d, at)
	case event.ContextCompacted:
		o.endTurn(at)
		o.session.AddEvent(ev.Type, at, trace.WithAttributes(attribute.Int64("harness.tokens_before", d.TokensBefore),
			attribute.Int64("harness.tokens_after", d.TokensAfter), attribute.Int("harness.dropped_messages", d.DroppedMessages),
			attribute.String("harness.summarizer", d.Summarizer)))
	case event.LimitReached:
		o.session.AddEvent(ev.Type, at, trace.WithAttributes(attribute.String(keyLimit, d.Limit)))
		o.session.SetAttributes(attribute.String(keyLimit, d.Limit))
	case event.AgentResponse:
		o.endTurn(at)
		if o.content {
			o.session.AddEvent(ev.Type, at, trace.WithAttributes(o.text(keyContent, d.Text)...))
		}
	case event.Error:
		o.fail(string(d.Kind), d.Message, at)
	case event.SessionEnded:
		o.session.SetAttributes(attribute.String(keyStatus, d.Status), attribute.Int(keyTurns, d.Turns),
			attribute.Int64(keyTokens, d.Tokens), attribute.Float64(keyCost, d.CostUSD))
		if d.Status == "error" {
			o.session.SetStatus(codes.Error, "the run failed")
		}
		o.end(at)
	case event.Note:
		o.artifact(ev.Type, d.Title, at)
	case event.Decision:
		o.artifact(ev.Type, d.Title, at)
	case event.Checklist:
		o.artifact(ev.Type, d.Title, at)
	}
}

func (o *Observer) artifact(typ, title string, at trace.SpanEventOption) {
	target := o.session
	if o.turn != nil {
		target = o.turn
	}
	target.AddEvent(typ, at, trace.WithAttributes(o.text(keyContent+".title", title)...))
}

func (o *Observer) startSession(ev session.Event, agent string, at trace.SpanEventOption) {
	o.sessID = ev.Session
	name := "invoke_agent"
	if agent != "" {
		name += " " + agent
	}
	o.sessCtx, o.session = o.tracer.Start(context.Background(), name, at, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String(keyOperation, "invoke_agent"), attribute.String(keyAgentName, agent),
			attribute.String(keyConversationID, ev.Session), attribute.Bool("harness.resumed", ev.Type == event.TypeSessionResumed)))
}

func (o *Observer) startRequest(ev session.Event, d event.LLMRequest, at trace.SpanEventOption) {
	o.endRequestAbandoned(at)
	if o.turn == nil || d.Turn != o.turnNo {
		o.endTurn(at)
		o.turnNo = d.Turn
		o.turnCtx, o.turn = o.tracer.Start(o.sessCtx, "turn "+strconv.Itoa(d.Turn), at, trace.WithAttributes(attribute.Int(keyTurn, d.Turn)))
	}
	system, id := o.models(d.Model)
	o.reqAttrs = []attribute.KeyValue{attribute.String(keyOperation, "chat"), attribute.String(keySystem, system),
		attribute.String(keyProvider, system), attribute.String(keyRequestModel, id)}
	attrs := append([]attribute.KeyValue{attribute.String(keyBinding, d.Model), attribute.Int(keyTurn, d.Turn),
		attribute.Int("harness.request.messages", d.Messages)}, o.reqAttrs...)
	_, o.request = o.tracer.Start(o.turnCtx, "chat "+id, at, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	o.reqStart = ev.Time
	o.usage = usageSums{}
}

// observeUsage sums the usage of the open request (a failed attempt that
// the provider billed is metered too) and counts it in the metrics.
func (o *Observer) observeUsage(d event.LLMUsage) {
	ctx := context.Background()
	system, id := o.models(d.Model)
	model := metric.WithAttributes(attribute.String(keySystem, system), attribute.String(keyRequestModel, id), attribute.String(keyOperation, "chat"))
	o.m.tokenUsage.Record(ctx, d.PromptTokens, model, metric.WithAttributes(attribute.String(keyTokenType, "input")))
	o.m.tokenUsage.Record(ctx, d.CompletionTokens, model, metric.WithAttributes(attribute.String(keyTokenType, "output")))
	for kind, n := range map[string]int64{"cache_hit": d.CacheHitTokens, "cache_miss": d.CacheMissTokens, "output": d.CompletionTokens, "reasoning": d.ReasoningTokens} {
		if n > 0 {
			o.m.tokens.Add(ctx, n, model, metric.WithAttributes(attribute.String(keyHarnessTokens, kind)))
		}
	}
	o.m.cost.Add(ctx, d.CostUSD, model)
	if o.request == nil {
		return
	}
	u := &o.usage
	u.in += d.PromptTokens
	u.out += d.CompletionTokens
	u.hit += d.CacheHitTokens
	u.miss += d.CacheMissTokens
	u.reasoning += d.ReasoningTokens
	o.request.SetAttributes(attribute.Int64(keyInputTokens, u.in), attribute.Int64(keyOutputTokens, u.out),
		attribute.Int64(keyCacheRead, u.hit), attribute.Int64(keyCacheMiss, u.miss), attribute.Int64(keyReasoning, u.reasoning),
		attribute.Float64(keyCost, d.CostUSD))
}

func (o *Observer) endRequest(d event.AssistantMessage, at trace.SpanEventOption) {
	if o.request == nil {
		return
	}
	o.request.SetAttributes(attribute.StringSlice(keyFinishReasons, []string{d.FinishReason}))
	if o.content {
		o.request.AddEvent("gen_ai.choice", trace.WithAttributes(o.text(keyContent, d.Content)...))
	}
	o.m.duration.Record(context.Background(), o.now.Sub(o.reqStart).Seconds(), metric.WithAttributes(o.reqAttrs...))
	o.request.End(at)
	o.request = nil
}

// endRequestAbandoned ends a request that got no answer (a retry past the
// fallback list, or an error).
func (o *Observer) endRequestAbandoned(at trace.SpanEventOption) {
	if o.request != nil {
		o.request.SetStatus(codes.Error, "no answer")
		o.request.End(at)
		o.request = nil
	}
}

func (o *Observer) startTool(d event.ToolCall, at trace.SpanEventOption) {
	parent := o.turnCtx
	if parent == nil {
		parent = o.sessCtx
	}
	attrs := []attribute.KeyValue{attribute.String(keyOperation, "execute_tool"), attribute.String(keyToolName, d.Tool),
		attribute.String(keyToolCallID, d.CallID)}
	if o.content {
		attrs = append(attrs, attribute.String(keyToolArguments, string(d.Arguments)))
	}
	_, s := o.tracer.Start(parent, "execute_tool "+d.Tool, at, trace.WithAttributes(attrs...))
	o.tools[d.CallID] = s
}

func (o *Observer) endTool(d event.ToolResult, at trace.SpanEventOption) {
	outcome := "ok"
	if !d.OK {
		outcome = "failed"
		if d.Error != nil && d.Error.Kind != "" {
			outcome = string(d.Error.Kind)
		}
	}
	o.m.toolCalls.Add(context.Background(), 1, metric.WithAttributes(attribute.String(keyToolName, d.Tool), attribute.String(keyOutcome, outcome)))
	s := o.tools[d.CallID]
	if s == nil {
		return // a later result of an action decided after the run
	}
	delete(o.tools, d.CallID)
	s.SetAttributes(attribute.Bool(keyToolOK, d.OK))
	if !d.OK {
		s.SetAttributes(attribute.String(keyErrorType, outcome))
		s.SetStatus(codes.Error, outcome)
	}
	if o.content {
		s.SetAttributes(o.text(keyToolResult, d.Content)...)
	}
	s.End(at)
}

func (o *Observer) endTurn(at trace.SpanEventOption) {
	o.endRequestAbandoned(at)
	for id, s := range o.tools {
		s.End(at)
		delete(o.tools, id)
	}
	if o.turn != nil {
		o.turn.End(at)
		o.turn, o.turnCtx = nil, nil
	}
}

// fail records the error that ended the run on the spans it ended.
func (o *Observer) fail(kind, message string, at trace.SpanEventOption) {
	desc := kind
	if o.content && message != "" {
		desc += ": " + message
	}
	if o.request != nil {
		o.request.SetAttributes(attribute.String(keyErrorType, kind))
		o.request.SetStatus(codes.Error, desc)
	}
	for _, s := range o.tools {
		s.SetAttributes(attribute.String(keyErrorType, kind))
		s.SetStatus(codes.Error, desc)
	}
	o.session.SetAttributes(attribute.String(keyErrorType, kind))
	o.session.SetStatus(codes.Error, desc)
}

func (o *Observer) end(at trace.SpanEventOption) {
	o.endTurn(at)
	if o.session != nil {
		o.session.End(at)
		o.session, o.sessCtx = nil, nil
	}
}

// Close ends whatever is still open at t: a run that stopped before
// session.ended still exports what it did.
func (o *Observer) Close(t time.Time) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.session != nil {
		o.session.SetAttributes(attribute.String(keyStatus, "not_ended"))
	}
	o.end(trace.WithTimestamp(t))
}

// text is key = v when content export is on, else nothing.
func (o *Observer) text(key string, v any) []attribute.KeyValue {
	if !o.content {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		s = string(b)
	}
	return []attribute.KeyValue{attribute.String(key, s)}
}
