package pluginhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
)

// sharedHost is a host whose plugins a and b share a process and c has
// its own; a and b are configured with workspaces /ws-a and /ws-b.
func sharedHost(t *testing.T) (*pluginhost.Host, map[string]*pluginhost.ToolHandle) {
	t.Helper()
	h := newHost(t,
		pluginhost.Spec{Name: "a", Kind: sdk.PluginTool, Builtin: true, Shared: true},
		pluginhost.Spec{Name: "b", Kind: sdk.PluginTool, Builtin: true, Shared: true},
		pluginhost.Spec{Name: "c", Kind: sdk.PluginTool, Builtin: true},
	)
	handles := map[string]*pluginhost.ToolHandle{}
	for _, name := range []string{"a", "b", "c"} {
		th, err := h.Tool(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := th.Configure(context.Background(), sdk.PluginConfig{Workspace: "/ws-" + name}); err != nil {
			t.Fatal(err)
		}
		handles[name] = th
	}
	return h, handles
}

func content(t *testing.T, th *pluginhost.ToolHandle, tool string) string {
	t.Helper()
	res, err := th.Execute(context.Background(), sdk.Call{ID: "c", Tool: tool, Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content
}

// Plugins of the shared process run in one process, each with its own
// configuration; a plugin that does not share has its own process.
func TestSharedPluginsShareAProcessNotAConfiguration(t *testing.T) {
	t.Parallel()
	h, th := sharedHost(t)
	for _, name := range []string{"a", "b", "c"} {
		if got := content(t, th[name], "workspace"); got != "/ws-"+name {
			t.Errorf("%s: workspace %q, want /ws-%s", name, got, name)
		}
		if got := content(t, th[name], "configures"); got != "1" {
			t.Errorf("%s: %s Configure calls reached its plugin, want 1", name, got)
		}
	}
	a, b, c := content(t, th["a"], "pid"), content(t, th["b"], "pid"), content(t, th["c"], "pid")
	if a != b || a == c {
		t.Errorf("pids a=%s b=%s c=%s: want a and b in one process, c in its own", a, b, c)
	}
	if got := h.PID("a"); got == 0 || got != h.PID("b") {
		t.Errorf("PID(a)=%d PID(b)=%d: want the shared process's", got, h.PID("b"))
	}
	h.Close()
	for _, name := range []string{"a", "b", "c"} {
		if h.PID(name) != 0 {
			t.Errorf("%s still running after Close", name)
		}
	}
}

// A crash of the shared process ends the calls of every plugin in it with
// process_exit, each naming the others and carrying the stderr tail; the
// next call of each starts one fresh process and replays each one's own
// configuration. The plugin with a process of its own is untouched.
func TestSharedProcessCrashEndsEveryPluginInIt(t *testing.T) {
	t.Parallel()
	h, th := sharedHost(t)
	ctx := context.Background()
	first, own := h.PID("a"), content(t, th["c"], "pid")

	done := make(chan error, 1)
	arrived := make(chan struct{})
	var once sync.Once
	go func() {
		_, err := th["b"].Execute(ctx, sdk.Call{ID: "s", Tool: "sleep", Arguments: json.RawMessage(`{}`)}, func(string, string) {
			once.Do(func() { close(arrived) })
		})
		done <- err
	}()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("the sleep call ended before the crash: %v", err)
	}
	_, crashErr := th["a"].Execute(ctx, sdk.Call{ID: "x", Tool: "crash", Arguments: json.RawMessage(`{}`)}, nil)
	for name, err := range map[string]error{"a": crashErr, "b": <-done} {
		var se *sdk.Error
		if !errors.As(err, &se) || se.Kind != sdk.KindProcessExit {
			t.Fatalf("%s: want process_exit, got %v", name, err)
		}
		for _, want := range []string{"shares with", "panic: boom from a plugin goroutine"} {
			if !strings.Contains(se.Message, want) {
				t.Errorf("%s: process_exit message lacks %q:\n%s", name, want, se.Message)
			}
		}
	}

	if got := content(t, th["b"], "workspace"); got != "/ws-b" {
		t.Errorf("b: workspace %q after the restart, want its own configuration replayed", got)
	}
	if got := content(t, th["a"], "workspace"); got != "/ws-a" {
		t.Errorf("a: workspace %q after the restart, want its own configuration replayed", got)
	}
	if second := h.PID("a"); second == 0 || second == first || second != h.PID("b") {
		t.Errorf("pids after the crash a=%d b=%d (before %d): want one fresh shared process", second, h.PID("b"), first)
	}
	if got := content(t, th["c"], "pid"); got != own {
		t.Errorf("c's own process changed from %s to %s with the shared one's crash", own, got)
	}
}

// Killing the shared process from outside is a crash like any other.
func TestSharedProcessKilledRestartsOnce(t *testing.T) {
	t.Parallel()
	h, th := sharedHost(t)
	first := h.PID("a")
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, name := range []string{"a", "b"} {
		res, err := th[name].Execute(context.Background(), sdk.Call{ID: "p", Tool: "pid", Arguments: json.RawMessage(`{}`)}, nil)
		var se *sdk.Error
		if err != nil && (!errors.As(err, &se) || se.Kind != sdk.KindProcessExit) {
			t.Fatalf("%s: the first call after the kill failed with %v, want process_exit or an answer", name, err)
		}
		if err != nil {
			res, err = th[name].Execute(context.Background(), sdk.Call{ID: "p", Tool: "pid", Arguments: json.RawMessage(`{}`)}, nil)
			if err != nil {
				t.Fatalf("%s: call after the kill: %v", name, err)
			}
		}
		pids = append(pids, res.Content)
	}
	if pids[0] != pids[1] {
		t.Errorf("after the kill a runs in %s and b in %s: want one fresh shared process", pids[0], pids[1])
	}
}

func TestSharedNeedsABuiltinWithoutEnvironment(t *testing.T) {
	t.Parallel()
	h, err := pluginhost.New(pluginhost.Options{SelfExe: testPlugin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	for _, spec := range []pluginhost.Spec{
		{Name: "third", Kind: sdk.PluginTool, Path: testPlugin, Shared: true},
		{Name: "env", Kind: sdk.PluginTool, Builtin: true, Shared: true, Env: []string{"A=1"}},
		{Name: "hook", Kind: sdk.PluginHook, Builtin: true, Shared: true},
	} {
		if err := h.Register(spec); err == nil || !strings.Contains(err.Error(), "cannot share a process") {
			t.Errorf("%s: Register = %v, want a refusal", spec.Name, err)
		}
	}
}
