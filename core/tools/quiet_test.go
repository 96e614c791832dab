package tools

import (
	"context"
	"encoding/json"
	"testing"

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
