package telemetry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/harness-agent/harness/core/session"
)

const secret = "SECRET-CONTENT"

// run is a session's events as the runner records them: two turns, a retry,
// two concurrent tool calls of which policy denies one, and an answer.
func run() []session.Event {
	var evs []session.Event
	t := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	add := func(typ string, data map[string]any) {
		raw, _ := json.Marshal(data)
		t = t.Add(10 * time.Millisecond)
		evs = append(evs, session.Event{Seq: int64(len(evs) + 1), Time: t, Session: "s-1", Type: typ, Data: raw})
	}
	add("session.started", map[string]any{"agent": "coder", "model": "flash", "task": "task " + secret})
	add("llm.request", map[string]any{"turn": 1, "model": "flash", "messages": 2})
	add("llm.retry", map[string]any{"attempt": 1, "kind": "rate_limited", "delay_ms": 500})
	add("assistant.chunk", map[string]any{"block": 0, "kind": "text", "delta": secret})
	add("llm.usage", map[string]any{"turn": 1, "model": "flash", "prompt_tokens": 1000, "completion_tokens": 50, "cache_hit_tokens": 800, "cache_miss_tokens": 200, "cost_usd": 0.01})
	add("assistant.message", map[string]any{"turn": 1, "model": "flash", "content": "text " + secret, "finish_reason": "tool_calls"})
	add("tool.call", map[string]any{"call_id": "c1", "tool": "read_file", "arguments": map[string]any{"path": secret}})
	add("tool.call", map[string]any{"call_id": "c2", "tool": "terminal", "arguments": map[string]any{"command": "rm " + secret}})
	add("action.proposed", map[string]any{"action_id": "a-1", "call_id": "c2", "tool": "terminal", "kind": "terminal", "summary": "rm " + secret})
	add("action.decided", map[string]any{"action_id": "a-1", "call_id": "c2", "decision": "denied", "by": "policy", "rule": `deny_commands "rm *"`})
	add("tool.result", map[string]any{"call_id": "c2", "tool": "terminal", "ok": false, "content": secret, "error": map[string]any{"kind": "denied", "message": secret}})
	add("tool.result", map[string]any{"call_id": "c1", "tool": "read_file", "ok": true, "content": "file " + secret})
	add("llm.request", map[string]any{"turn": 2, "model": "flash", "messages": 5})
	add("llm.usage", map[string]any{"turn": 2, "model": "flash", "prompt_tokens": 1100, "completion_tokens": 20, "cache_hit_tokens": 1000, "cache_miss_tokens": 100, "cost_usd": 0.002})
	add("assistant.message", map[string]any{"turn": 2, "model": "flash", "content": "done " + secret, "finish_reason": "stop"})
	add("agent.response", map[string]any{"text": "done " + secret})
	add("session.ended", map[string]any{"status": "completed", "turns": 2, "tokens": 2170, "cost_usd": 0.012})
	return evs
}

func observe(t *testing.T, content bool, evs []session.Event) ([]sdktrace.ReadOnlySpan, metricdata.ResourceMetrics) {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	o := NewObserver(tp.Tracer("test"), mp.Meter("test"), content, func(name string) (string, string) { return "deepseek", "deepseek-" + name })
	sink := o.Wrap(nil)
	for _, ev := range evs {
		sink(ev)
	}
	o.Close(time.Now())
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return spans.Ended(), rm
}

func attrs(s sdktrace.ReadOnlySpan) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

func TestObserverBuildsTheSpanTree(t *testing.T) {
	t.Parallel()
	ended, _ := observe(t, false, run())
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range ended {
		byName[s.Name()] = s
	}
	root := byName["invoke_agent coder"]
	if root == nil || len(ended) != 7 {
		names := []string{}
		for _, s := range ended {
			names = append(names, s.Name())
		}
		t.Fatalf("spans %v, want the session, 2 turns, 2 requests and 2 tool calls", names)
	}
	parent := func(child, want string) {
		t.Helper()
		c, p := byName[child], byName[want]
		if c == nil || p == nil || c.Parent().SpanID() != p.SpanContext().SpanID() {
			t.Errorf("%s is not a child of %s", child, want)
		}
	}
	// Two requests share the name "chat deepseek-flash": check the tree by turn.
	var chats []sdktrace.ReadOnlySpan
	for _, s := range ended {
		if s.Name() == "chat deepseek-flash" {
			chats = append(chats, s)
		}
	}
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2", len(chats))
	}
	parent("turn 1", "invoke_agent coder")
	parent("turn 2", "invoke_agent coder")
	if chats[0].Parent().SpanID() != byName["turn 1"].SpanContext().SpanID() {
		t.Error("the first request is not in turn 1")
	}
	parent("execute_tool read_file", "turn 1")
	parent("execute_tool terminal", "turn 1")

	for key, want := range map[string]attribute.Value{
		"gen_ai.system":                        attribute.StringValue("deepseek"),
		"gen_ai.request.model":                 attribute.StringValue("deepseek-flash"),
		"gen_ai.operation.name":                attribute.StringValue("chat"),
		"gen_ai.usage.input_tokens":            attribute.Int64Value(1000),
		"gen_ai.usage.output_tokens":           attribute.Int64Value(50),
		"gen_ai.usage.cache_read.input_tokens": attribute.Int64Value(800),
		"harness.usage.cache_miss_tokens":      attribute.Int64Value(200),
	} {
		if got := attrs(chats[0])[key]; got != want {
			t.Errorf("first request %s = %v, want %v", key, got.Emit(), want.Emit())
		}
	}
	if n := len(chats[0].Events()); n != 1 || chats[0].Events()[0].Name != "llm.retry" {
		t.Errorf("first request events %v, want the retry", chats[0].Events())
	}
	denied := byName["execute_tool terminal"]
	for key, want := range map[string]string{
		"gen_ai.tool.name": "terminal", "harness.approval.decision": "denied", "harness.approval.by": "policy",
		"harness.approval.rule": `deny_commands "rm *"`, "error.type": "denied",
	} {
		if got := attrs(denied)[key].AsString(); got != want {
			t.Errorf("denied call %s = %q, want %q", key, got, want)
		}
	}
	if denied.Status().Code != codes.Error || byName["execute_tool read_file"].Status().Code == codes.Error {
		t.Errorf("statuses: denied %v, read %v", denied.Status(), byName["execute_tool read_file"].Status())
	}
	if got := attrs(root)["harness.session.status"].AsString(); got != "completed" {
		t.Errorf("session status %q", got)
	}
	if !root.StartTime().Equal(run()[0].Time) {
		t.Errorf("the session span starts at %v, not at its first event", root.StartTime())
	}
}

// Every string an exported span or point carries, to look for content in.
func exported(spans []sdktrace.ReadOnlySpan, rm metricdata.ResourceMetrics) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.Name() + " " + s.Status().Description + "\n")
		for _, kv := range s.Attributes() {
			b.WriteString(kv.Value.Emit() + "\n")
		}
		for _, e := range s.Events() {
			for _, kv := range e.Attributes {
				b.WriteString(kv.Value.Emit() + "\n")
			}
		}
	}
	out, _ := json.Marshal(rm)
	b.Write(out)
	return b.String()
}

func TestObserverExportsContentOnlyWhenAskedTo(t *testing.T) {
	t.Parallel()
	if got := exported(observe(t, false, run())); strings.Contains(got, secret) {
		t.Errorf("content exported without the opt-in:\n%s", got)
	}
	got := exported(observe(t, true, run()))
	for _, want := range []string{"task " + secret, "file " + secret, `{"path":"` + secret + `"}`, "text " + secret} {
		if !strings.Contains(got, want) {
			t.Errorf("with content on, %q is not exported", want)
		}
	}
}

func TestObserverCountsTokensCostToolsAndApprovals(t *testing.T) {
	t.Parallel()
	_, rm := observe(t, false, run())
	sums := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					sums[m.Name] += float64(p.Value)
					if v, ok := p.Attributes.Value("harness.token.type"); ok {
						sums[m.Name+"/"+v.AsString()] += float64(p.Value)
					}
					if v, ok := p.Attributes.Value("harness.tool.outcome"); ok {
						sums[m.Name+"/"+v.AsString()] += float64(p.Value)
					}
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					sums[m.Name] += p.Value
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					sums[m.Name] += float64(p.Sum)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					sums[m.Name+"/count"] += float64(p.Count)
				}
			}
		}
	}
	for name, want := range map[string]float64{
		"harness.tokens/cache_hit":               1800,
		"harness.tokens/cache_miss":              300,
		"harness.tokens/output":                  70,
		"gen_ai.client.token.usage":              2170,
		"harness.tool.calls":                     2,
		"harness.tool.calls/denied":              1,
		"harness.approvals":                      1,
		"gen_ai.client.operation.duration/count": 2,
	} {
		if sums[name] != want {
			t.Errorf("%s = %v, want %v", name, sums[name], want)
		}
	}
	if c := sums["harness.cost"]; c < 0.0119 || c > 0.0121 {
		t.Errorf("harness.cost = %v, want 0.012", c)
	}
}

// A run that stops without session.ended (killed between events) still
// ends its spans when the exporter shuts down.
func TestObserverEndsWhatARunLeftOpen(t *testing.T) {
	t.Parallel()
	evs := run()[:8]
	ended, _ := observe(t, false, evs)
	if len(ended) != 5 { // session, turn 1, its request, two tool calls
		t.Fatalf("%d spans ended, want 5", len(ended))
	}
	for _, s := range ended {
		if s.Parent().IsValid() {
			continue
		}
		if got := attrs(s)["harness.session.status"].AsString(); got != "not_ended" {
			t.Errorf("session status %q, want not_ended", got)
		}
	}
}

func TestNilObserverCostsNothing(t *testing.T) {
	t.Parallel()
	var o *Observer
	called := 0
	next := func(session.Event) { called++ }
	o.Wrap(next)(session.Event{})
	o.Close(time.Now())
	if called != 1 {
		t.Errorf("the wrapped sink ran %d times", called)
	}
	var e *Exporter
	if e.Wrap(nil) != nil {
		t.Error("a nil exporter wraps a nil sink into something")
	}
	if err := e.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}
