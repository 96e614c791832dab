package tools_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// sourceFunc is an in-process tool source.
type sourceFunc func(ctx context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error)

func (f sourceFunc) Execute(ctx context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error) {
	return f(ctx, call, progress)
}

// counting returns a source answering "ok" and a counter of its executions.
func counting() (tools.Source, func() int) {
	var mu sync.Mutex
	n := 0
	return sourceFunc(func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			n++
			return sdk.Result{Content: "ok"}, nil
		}), func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}
}

var objectSchema = json.RawMessage(`{"type":"object"}`)

func tool(name string, src tools.Source) tools.Tool {
	return tools.Tool{Spec: sdk.ToolSpec{Name: name, Description: name + " does things", InputSchema: objectSchema}, Origin: tools.OriginBuiltin, Source: src}
}

var readSchema = schema.Object(
	schema.String("path", "File to read.").Required(),
	schema.Integer("offset", "First line, 1-based.").Min(1),
).JSON()

// direct approves every call without an action, routing it through the
// approve hooks first when withHooks is set.
type direct struct{ withHooks bool }

func (d direct) Approve(ctx context.Context, req tools.ApprovalRequest) tools.Approval {
	if d.withHooks {
		if h := req.Hooks(ctx, "tool", req.Call.Tool); h.Decision == sdk.DecisionDeny {
			return tools.Approval{Err: sdk.Errorf(sdk.KindDenied, "denied by hook %q: %s", h.Hook, h.Reason)}
		}
	}
	return tools.Approval{Run: true}
}

func (direct) Executed(context.Context, string, tools.ResultEvent) error { return nil }

// recorded is one recorded event.
type recorded struct {
	Type string
	Data json.RawMessage
}

// memRecorder keeps events in memory.
type memRecorder struct {
	mu     sync.Mutex
	events []recorded
}

func (r *memRecorder) Record(_ context.Context, d event.Data) error {
	typ := d.EventType()
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recorded{Type: typ, Data: b})
	return nil
}

func (r *memRecorder) ofType(typ string) []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []json.RawMessage
	for _, e := range r.events {
		if e.Type == typ {
			out = append(out, e.Data)
		}
	}
	return out
}

func newRegistry(t testing.TB, ts ...tools.Tool) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	for _, tl := range ts {
		if err := reg.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func newExecutor(t testing.TB, reg *tools.Registry, opts tools.Options) *tools.Executor {
	t.Helper()
	if opts.Approver == nil {
		opts.Approver = direct{}
	}
	if opts.Whitelist == nil {
		opts.Whitelist = reg.Names()
	}
	ex, err := tools.NewExecutor(reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func call(id, tool, args string) sdk.Call {
	return sdk.Call{ID: id, Tool: tool, Arguments: json.RawMessage(args)}
}

func errKind(o tools.Outcome) sdk.ErrorKind {
	if o.Result.Err == nil {
		return ""
	}
	return o.Result.Err.Kind
}
