package tools

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

type allowEverything struct{}

type noSource struct{}

func (noSource) Execute(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
	return sdk.Result{}, nil
}

func (allowEverything) Approve(context.Context, ApprovalRequest) Approval   { return Approval{Run: true} }
func (allowEverything) Executed(context.Context, string, ResultEvent) error { return nil }

// Only calls that cannot act on the world may run while their tool.call
// is being committed: a visible tool of the core or a plugin that
// declares neither writes, executes nor network, with no hook configured.
func TestQuietReads(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	for _, tool := range []Tool{
		{Spec: sdk.ToolSpec{Name: "read", Capabilities: sdk.Capabilities{Reads: true}}, Origin: OriginBuiltin},
		{Spec: sdk.ToolSpec{Name: "plugin_read", Capabilities: sdk.Capabilities{Reads: true}}, Origin: OriginPlugin},
		{Spec: sdk.ToolSpec{Name: "write", Capabilities: sdk.Capabilities{Reads: true, Writes: true}}, Origin: OriginBuiltin},
		{Spec: sdk.ToolSpec{Name: "run", Capabilities: sdk.Capabilities{Executes: true}}, Origin: OriginBuiltin},
		{Spec: sdk.ToolSpec{Name: "fetch", Capabilities: sdk.Capabilities{Reads: true, Network: true}}, Origin: OriginPlugin},
		{Spec: sdk.ToolSpec{Name: "srv__read", Capabilities: sdk.Capabilities{Reads: true}}, Origin: OriginMCP},
		{Spec: sdk.ToolSpec{Name: "hidden", Capabilities: sdk.Capabilities{Reads: true}}, Origin: OriginBuiltin},
	} {
		tool.Spec.InputSchema = json.RawMessage(`{"type":"object"}`)
		tool.Owner, tool.Source = "t", noSource{}
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	visible := []string{"read", "plugin_read", "write", "run", "fetch", "srv__read"}
	ex, err := NewExecutor(reg, Options{Whitelist: visible, Approver: allowEverything{}})
	if err != nil {
		t.Fatal(err)
	}
	hooked, err := NewExecutor(reg, Options{Whitelist: visible, Approver: allowEverything{},
		Hooks: []Hook{{Name: "h", Phases: []string{sdk.PhaseResult}}}})
	if err != nil {
		t.Fatal(err)
	}
	calls := func(names ...string) []sdk.Call {
		var cs []sdk.Call
		for _, n := range names {
			cs = append(cs, sdk.Call{ID: n, Tool: n})
		}
		return cs
	}
	for _, tc := range []struct {
		ex    *Executor
		calls []string
		want  bool
	}{
		{ex, []string{"read"}, true},
		{ex, []string{"read", "plugin_read"}, true},
		{ex, []string{"read", "write"}, false},
		{ex, []string{"run"}, false},
		{ex, []string{"fetch"}, false},
		{ex, []string{"srv__read"}, false},
		{ex, []string{"hidden"}, false},
		{ex, []string{"missing"}, false},
		{hooked, []string{"read"}, false},
	} {
		if got := tc.ex.quietReads(calls(tc.calls...)...); got != tc.want {
			t.Errorf("quietReads(%v) with %d hook phases = %v, want %v", tc.calls, len(tc.ex.hooks), got, tc.want)
		}
	}
}

// countingSource counts the calls it runs.
type countingSource struct{ ran *atomic.Int32 }

func (s countingSource) Execute(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
	s.ran.Add(1)
	return sdk.Result{}, nil
}

// countingExecutor is an executor recording to rec with one core tool,
// name with caps, and the count of the calls it ran.
func countingExecutor(t *testing.T, rec *StoreRecorder, name string, caps sdk.Capabilities) (*Executor, *atomic.Int32) {
	t.Helper()
	ran := new(atomic.Int32)
	reg := NewRegistry()
	if err := reg.Add(Tool{Spec: sdk.ToolSpec{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Capabilities: caps},
		Origin: OriginBuiltin, Owner: "t", Source: countingSource{ran}}); err != nil {
		t.Fatal(err)
	}
	ex, err := NewExecutor(reg, Options{Session: rec.Session, Whitelist: []string{name}, Approver: allowEverything{}, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	return ex, ran
}

// A call whose tool.call could not be committed (the store failed, or a
// background commit before it did) does not run: it would act on the
// world with no record of it.
func TestCallNotRecordedDoesNotRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, s, _, shown := openRecorder(t)
	ex, ran := countingExecutor(t, rec, "write", sdk.Capabilities{Writes: true})
	s.Close()
	for _, run := range []func(context.Context, sdk.Call) Outcome{ex.Run, ex.RunDeferred} {
		o := run(ctx, sdk.Call{ID: "c1", Tool: "write", Arguments: json.RawMessage(`{}`)})
		if o.RecordErr == nil || o.Result.Err == nil {
			t.Errorf("outcome %+v, want the record failure", o)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the tool ran %d times with its tool.call not committed", n)
	}
	if got := shown(); len(got) != 0 {
		t.Errorf("shown %v", got)
	}
}

// A call that cannot act on the world runs while its tool.call is being
// committed, but not once a background commit is known to have failed.
func TestQuietReadAfterFailedCommitDoesNotRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, how := range []string{"Announce", "RunDeferred"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			rec, s, _, _ := openRecorder(t)
			ex, ran := countingExecutor(t, rec, "read", sdk.Capabilities{Reads: true})
			s.Close()
			rec.Defer(ctx, event.ToolResult{CallID: "c0", OK: true})
			rec.Background(ctx)
			testkit.WaitFor(t, func() bool {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				return rec.err != nil
			}, "the background commit to fail")
			call := sdk.Call{ID: "c1", Tool: "read", Arguments: json.RawMessage(`{}`)}
			switch how {
			case "Announce":
				if err := ex.Announce(ctx, call); err == nil {
					t.Error("Announce after a failed commit returned no error")
				}
			case "RunDeferred":
				if o := ex.RunDeferred(ctx, call); o.RecordErr == nil {
					t.Errorf("outcome %+v, want the record failure", o)
				}
			}
			if n := ran.Load(); n != 0 {
				t.Errorf("the call ran after a failed commit")
			}
		})
	}
}
