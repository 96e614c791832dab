package pluginhost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/internal/testkit"
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

	done := sleeping(t, th["b"])
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

// A plugin process killed between calls is replaced on the next call,
// which is answered: a process that is dead, even before go-plugin has
// noticed, gets no call. The shared process is replaced once for all its
// plugins.
func TestKilledBetweenCallsNextCallIsAnswered(t *testing.T) {
	t.Parallel()
	h, th := sharedHost(t)
	for _, victim := range []string{"a", "c"} {
		first := h.PID(victim)
		if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, func() bool { return !running(first) }, "the killed plugin process to die")
		pids := map[string]string{}
		for _, name := range []string{"a", "b", "c"} {
			res, err := th[name].Execute(context.Background(), sdk.Call{ID: "p", Tool: "pid", Arguments: json.RawMessage(`{}`)}, nil)
			if err != nil {
				t.Fatalf("after killing %s: %s's first call failed: %v", victim, name, err)
			}
			pids[name] = res.Content
		}
		if pids["a"] != pids["b"] || pids["a"] == pids["c"] || pids[victim] == fmt.Sprint(first) {
			t.Errorf("after killing %s (pid %d): pids %v, want a fresh process for it, a and b in one", victim, first, pids)
		}
	}
}

// running reports whether any thread of process pid still runs. Killed,
// its main thread is a zombie at once, but the process has exited (and its
// sockets are closed) only once its last thread has.
func running(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue
		}
		// tid (comm) S ...: the state follows the last ")".
		rest := bytes.TrimSpace(stat[bytes.LastIndexByte(stat, ')')+1:])
		if !bytes.HasPrefix(rest, []byte("Z")) && !bytes.HasPrefix(rest, []byte("X")) {
			return true
		}
	}
	return false
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

// A shared process killed while b is in a call, and found dead by a's
// next call, which starts a fresh one: b's call, failing after that,
// still learns how the process ended.
func TestSharedProcessEndReportedAfterTheRestart(t *testing.T) {
	t.Parallel()
	h, th := sharedHost(t)
	first, gen := h.PID("a"), h.Generation("b")
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, func() bool { return !running(first) }, "the killed shared process to die")
	if got := content(t, th["a"], "workspace"); got != "/ws-a" {
		t.Fatalf("a after the kill: %q", got)
	}
	err := h.Failure("b", gen, status.Error(codes.Unavailable, "connection closed"))
	var se *sdk.Error
	if !errors.As(err, &se) || se.Kind != sdk.KindProcessExit || !strings.Contains(se.Message, "killed by SIGKILL") {
		t.Errorf("b's call on the killed process: %v, want process_exit saying it was killed by SIGKILL", err)
	}
}
