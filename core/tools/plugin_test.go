package tools_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// hookPlugins registers the crashhook binary once per name in a real
// plugin host and subscribes each to its phases.
func hookPlugins(t *testing.T, timeout time.Duration, phases map[string][]string) []tools.Hook {
	t.Helper()
	crashHook := testkit.Build(t, "./testdata/crashhook")
	sum, err := pluginhost.FileSHA256(crashHook)
	if err != nil {
		t.Fatal(err)
	}
	host, err := pluginhost.New(pluginhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	var hooks []tools.Hook
	for name, ph := range phases {
		if err := host.Register(pluginhost.Spec{Name: name, Kind: sdk.PluginHook, Path: crashHook, SHA256: sum}); err != nil {
			t.Fatal(err)
		}
		h, err := host.Hook(name)
		if err != nil {
			t.Fatal(err)
		}
		hooks = append(hooks, tools.PluginHook(name, h, ph, timeout))
		// Started here, so that the hook's timeout bounds its answer only,
		// not the start of its process on a loaded machine.
		if err := host.Warm(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	return hooks
}

func TestHookPlugins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		phases   []string
		tool     string
		wantKind sdk.ErrorKind
		want     []string
	}{
		{"crash at pre-execute denies", []string{sdk.PhasePreExecute}, "crash", sdk.KindDenied,
			[]string{`hook "policy"`, "the hook failed, which denies", "during the call", "crashhook: crashing on purpose"}},
		{"crash at approve denies", []string{sdk.PhaseApprove}, "crash", sdk.KindDenied, []string{"during the call"}},
		{"hang at approve denies", []string{sdk.PhaseApprove}, "hang", sdk.KindDenied, []string{"did not answer within 2s"}},
		{"deny at pre-execute", []string{sdk.PhasePreExecute}, "deny", sdk.KindDenied, []string{"crashhook denies tools/pre-execute"}},
		{"error at approve denies", []string{sdk.PhaseApprove}, "fail", sdk.KindDenied, []string{"crashhook fails on purpose"}},
		{"allow", []string{sdk.PhasePreExecute, sdk.PhaseApprove}, "fine", "", nil},
		{"crash while observing is ignored", []string{sdk.PhasePostExecute, sdk.PhaseResult}, "crash", "", nil},
		{"error while observing is ignored", []string{sdk.PhasePostExecute, sdk.PhaseResult}, "fail", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hooks := hookPlugins(t, 2*time.Second, map[string][]string{"policy": tt.phases})
			src, runs := counting()
			ex := newExecutor(t, newRegistry(t, tool(tt.tool, src)), tools.Options{Hooks: hooks, Approver: direct{withHooks: true}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			o := ex.Run(ctx, call("c", tt.tool, `{}`))
			if errKind(o) != tt.wantKind {
				t.Fatalf("kind %q, want %q: %+v", errKind(o), tt.wantKind, o.Result)
			}
			for _, w := range tt.want {
				if !strings.Contains(o.Result.Err.Message, w) {
					t.Errorf("message lacks %q:\n%s", w, o.Result.Err.Message)
				}
			}
			wantRuns := 1
			if tt.wantKind != "" {
				wantRuns = 0
			}
			if runs() != wantRuns {
				t.Errorf("the tool ran %d times, want %d", runs(), wantRuns)
			}
		})
	}
}

func TestPluginSource(t *testing.T) {
	t.Parallel()
	set := &sdk.ToolSet{Name: "echo", Tools: []sdk.Tool{{
		Spec: sdk.ToolSpec{Name: "echo", InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		Run: func(_ context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error) {
			progress("stdout", "working")
			var args struct{ Text string }
			if err := sdk.DecodeArgs(call, &args); err != nil {
				return sdk.Result{}, err
			}
			if args.Text == "fail" {
				return sdk.Result{}, sdk.Errorf(sdk.KindPathEscape, "no way")
			}
			return sdk.Result{Content: args.Text, Presentation: sdk.TextView{Text: args.Text}}, nil
		},
	}}}
	client := sdktest.ConnectTool(t, set)
	info, err := client.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec := &memRecorder{}
	reg := newRegistry(t, tools.Tool{Spec: info.Tools[0], Origin: tools.OriginPlugin, Owner: "echo", Source: client})
	ex := newExecutor(t, reg, tools.Options{Recorder: rec})

	o := ex.Run(context.Background(), call("c1", "echo", `{"text":"hello"}`))
	if o.Result.Err != nil || o.Result.Content != "hello" || o.Result.Presentation != (sdk.TextView{Text: "hello"}) {
		t.Errorf("outcome %+v", o.Result)
	}
	if got := rec.ofType(event.TypeToolProgress); len(got) != 1 || string(got[0]) != `{"call_id":"c1","stream":"stdout","text":"working"}` {
		t.Errorf("progress events %s", got)
	}
	if o := ex.Run(context.Background(), call("c2", "echo", `{"text":"fail"}`)); errKind(o) != sdk.KindPathEscape {
		t.Errorf("a plugin's error kind should survive: %+v", o.Result)
	}
	if o := ex.Run(context.Background(), call("c3", "echo", `{}`)); errKind(o) != sdk.KindInvalidArgs {
		t.Errorf("arguments are validated before the plugin is called: %+v", o.Result)
	}
}
