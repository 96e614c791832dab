package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/internal/sandboxtest"
	"github.com/harness-agent/harness/plugins/terminal/internal/helper"
	"github.com/harness-agent/harness/sdk"
)

// connect serves a fresh terminal plugin in-process, configured with cfg
// (JSON) on a new workspace, and returns its client and the workspace.
func connect(t *testing.T, cfg string) (*sdk.ToolClient, string) {
	t.Helper()
	ws := t.TempDir()
	client := connectInProcess(t, New())
	if err := client.Configure(context.Background(), sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(cfg)}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	return client, ws
}

// connectInProcess is sdktest.ConnectTool with the cleanup in the other
// order: ConnectTool closes the client (whose Shutdown RPC stops the server
// from a server goroutine) and then stops the server itself, a data race
// inside go-plugin's GRPCServer.Stop that -race reports. Stopping the
// server first makes the client's Shutdown RPC fail instead.
func connectInProcess(t *testing.T, impl sdk.ToolPlugin) *sdk.ToolClient {
	t.Helper()
	client, server := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{sdk.PluginTool: &sdk.ToolGRPCPlugin{Impl: impl}})
	t.Cleanup(func() {
		server.Stop()
		client.Close()
	})
	raw, err := client.Dispense(sdk.PluginTool)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	return raw.(*sdk.ToolClient)
}

type event struct{ stream, text string }

// recorder collects progress events; safe for the test to read while the
// client writes.
type recorder struct {
	mu     sync.Mutex
	events []event
	seen   chan string // each event's text, for tests that react to output
}

func newRecorder() *recorder { return &recorder{seen: make(chan string, 1024)} }

func (r *recorder) progress(stream, text string) {
	r.mu.Lock()
	r.events = append(r.events, event{stream, text})
	r.mu.Unlock()
	select {
	case r.seen <- text:
	default:
	}
}

func (r *recorder) all() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...)
}

// waitOutput blocks until some output contains s.
func (r *recorder) waitOutput(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		for _, e := range r.all() {
			if strings.Contains(e.text, s) {
				return
			}
		}
		select {
		case <-r.seen:
		case <-deadline:
			t.Fatalf("no output %q within 30s", s)
		}
	}
}

func call(command string, timeout float64) sdk.Call {
	args := map[string]any{"command": command}
	if timeout > 0 {
		args["timeout_seconds"] = timeout
	}
	b, _ := json.Marshal(args)
	return sdk.Call{ID: "c1", Tool: "terminal", Arguments: b}
}

func run(t *testing.T, client *sdk.ToolClient, c sdk.Call, progress sdk.Progress) sdk.Result {
	t.Helper()
	res, err := client.Execute(context.Background(), c, progress)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	return res
}

func TestCommands(t *testing.T) {
	t.Parallel()
	inEveryMode(t, func(t *testing.T, mode, cfg string) {
		testCommands(t, cfg)
	})
}

func testCommands(t *testing.T, cfg string) {
	client, ws := connect(t, cfg)
	tests := []struct {
		name    string
		command string
		content string // the whole content
		code    int
	}{
		{"echo", "echo hello", "hello\nexit code: 0", 0},
		{"stderr and exit code", "echo oops >&2; exit 3", "oops\nexit code: 3", 3},
		{"no output", "true", "(no output)\nexit code: 0", 0},
		{"no trailing newline", "printf abc", "abc\nexit code: 0", 0},
		{"runs in the workspace", "pwd", ws + "\nexit code: 0", 0},
		{"stdin is empty", "cat; echo done", "done\nexit code: 0", 0},
		{"shell killed by a signal", "kill -9 $$", "(no output)\nexit code: 137 (killed by SIGKILL)", 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := run(t, client, call(tt.command, 0), nil)
			if res.Err != nil {
				t.Fatalf("a finished command is a successful call, got %v", res.Err)
			}
			if res.Content != tt.content {
				t.Errorf("content = %q, want %q", res.Content, tt.content)
			}
			view, ok := res.Presentation.(sdk.TerminalView)
			if !ok || view.Command != tt.command || view.ExitCode != tt.code {
				t.Errorf("presentation = %#v", res.Presentation)
			}
		})
	}
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	client, _ := connect(t, `{"sandbox": "off"}`)
	for _, args := range []string{`{}`, `{"command": "  "}`, `{"command": "true", "timeout_seconds": 0}`, `{"command": 1}`} {
		res := run(t, client, sdk.Call{Tool: "terminal", Arguments: json.RawMessage(args)}, nil)
		if res.Err == nil || res.Err.Kind != sdk.KindInvalidArgs {
			t.Errorf("%s: err = %v, want invalid_args", args, res.Err)
		}
	}
}

func TestProgressInOrder(t *testing.T) {
	t.Parallel()
	client, _ := connect(t, `{"sandbox": "off"}`)
	rec := newRecorder()
	res := run(t, client, call("echo out1; sleep 0.2; echo err1 >&2; sleep 0.2; echo out2", 0), rec.progress)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var got []event
	for _, e := range rec.all() { // merge what coalescing may have split
		if n := len(got); n > 0 && got[n-1].stream == e.stream {
			got[n-1].text += e.text
			continue
		}
		got = append(got, e)
	}
	want := []event{{"stdout", "out1\n"}, {"stderr", "err1\n"}, {"stdout", "out2\n"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("progress = %q, want %q", got, want)
	}
	if !strings.HasPrefix(res.Content, "out1\nerr1\nout2\n") {
		t.Errorf("content not in arrival order: %q", res.Content)
	}
}

// modes are the plugin configs the process tests run under: unsandboxed,
// where the helper ends the command's process group, and sandboxed, where
// it is PID 1 of the command's PID namespace.
var modes = map[string]string{"unsandboxed": `{"sandbox": "off"}`, "sandboxed": `{}`}

// inEveryMode runs test in parallel subtests, one per mode, skipping the
// sandboxed mode where this kernel cannot sandbox (and saying why).
func inEveryMode(t *testing.T, test func(t *testing.T, mode, cfg string)) {
	t.Helper()
	for mode, cfg := range modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			if mode == "sandboxed" {
				requireSandbox(t)
			}
			test(t, mode, cfg)
		})
	}
}

// hostGroup is the process group a command printed with spawnSleepers,
// where it is a number of the host's PID namespace (0 otherwise: a
// sandboxed command's numbers are its own namespace's).
func hostGroup(t *testing.T, mode, output string) int {
	t.Helper()
	pgid := startedGroup(t, output)
	if mode == "sandboxed" {
		return 0
	}
	return pgid
}

func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	inEveryMode(t, func(t *testing.T, mode, cfg string) {
		client, _ := connect(t, cfg)
		marker := sleepMarker()
		res := run(t, client, call(spawnSleepers(marker, "")+"; sleep "+marker, 1), nil)
		if res.Err == nil || res.Err.Kind != sdk.KindTimeout {
			t.Fatalf("err = %v, want kind timeout", res.Err)
		}
		if !strings.Contains(res.Content, "started ") || !strings.HasSuffix(res.Content, "timed out after 1s: the command and every process it started were killed") {
			t.Errorf("content = %q, want the partial output and the timeout", res.Content)
		}
		if view := res.Presentation.(sdk.TerminalView); view.ExitCode != -1 || !strings.HasPrefix(view.Output, "started ") {
			t.Errorf("presentation = %#v", view)
		}
		assertGone(t, marker, hostGroup(t, mode, res.Content))
	})
}

func TestBackgroundProcessesEndWithTheCommand(t *testing.T) {
	t.Parallel()
	inEveryMode(t, func(t *testing.T, mode, cfg string) {
		testBackgroundProcessesEnd(t, cfg)
	})
}

func testBackgroundProcessesEnd(t *testing.T, cfg string) {
	client, _ := connect(t, cfg)
	tests := map[string]string{
		"background job holding the pipes": "sleep %s & echo bg",
		"daemon that left the group":       "setsid sleep %s & echo bg",
		"double fork":                      "( (sleep %s &) & ); echo bg",
		"job that ignores SIGTERM":         "(trap '' TERM; sleep %s) & echo bg",
	}
	for name, tmpl := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			marker := sleepMarker()
			// A hang would end in a timeout; the call must end with the shell.
			res := run(t, client, call(fmt.Sprintf(tmpl, marker), 60), nil)
			if res.Err != nil || res.Content != "bg\nexit code: 0" {
				t.Fatalf("content %q, err %v", res.Content, res.Err)
			}
			assertGone(t, marker, 0)
		})
	}
}

func TestCancelKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	inEveryMode(t, func(t *testing.T, mode, cfg string) {
		client, _ := connect(t, cfg)
		marker := sleepMarker()
		rec := newRecorder()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			rec.waitOutput(t, "started")
			cancel()
		}()
		res, err := client.Execute(ctx, call(spawnSleepers(marker, "")+"; sleep "+marker, 60), rec.progress)
		// The host side sees its own cancellation; the plugin ends the command.
		if err == nil && (res.Err == nil || res.Err.Kind != sdk.KindCanceled) {
			t.Fatalf("res %+v, err %v: want a canceled call", res, err)
		}
		var output strings.Builder
		for _, e := range rec.all() {
			output.WriteString(e.text)
		}
		pgid := hostGroup(t, mode, output.String())
		waitFor(t, 10*time.Second, "the canceled command's processes to go", func() bool {
			return len(withMarker(marker)) == 0 && (pgid == 0 || len(inGroup(pgid)) == 0)
		})
	})
}

func TestCancelDirect(t *testing.T) {
	t.Parallel()
	// Without gRPC in between, the tool's own result for a canceled call.
	ts := New()
	if err := ts.Configure(context.Background(), sdk.PluginConfig{Workspace: t.TempDir(), Config: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	marker := sleepMarker()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := newRecorder()
	go func() {
		rec.waitOutput(t, "started")
		cancel()
	}()
	res, err := ts.Execute(ctx, call(spawnSleepers(marker, "", "setsid ")+"; sleep "+marker, 60), rec.progress)
	if err != nil || res.Err == nil || res.Err.Kind != sdk.KindCanceled {
		t.Fatalf("res %+v, err %v: want kind canceled", res, err)
	}
	if !strings.HasSuffix(res.Content, "canceled: the command and every process it started were killed") {
		t.Errorf("content = %q", res.Content)
	}
	assertGone(t, marker, startedGroup(t, res.Content))
}

func TestLargeOutputIsCappedInBoundedMemory(t *testing.T) {
	// Not parallel: it measures the heap of the whole test process.
	client, _ := connect(t, `{"sandbox": "off"}`)
	const size = 10_000_000

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	var streamed atomic.Int64
	res := run(t, client, call(fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a", size), 120), func(_, text string) {
		streamed.Add(int64(len(text)))
	})
	close(stop)
	<-sampled

	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if streamed.Load() != size {
		t.Errorf("progress streamed %d bytes, want %d", streamed.Load(), size)
	}
	marker := fmt.Sprintf("\n[… %d bytes (0 lines) omitted …]\n", size-headCap-tailCap)
	head, tail, ok := strings.Cut(res.Content, marker)
	if !ok {
		t.Fatalf("no omission marker %q in %d bytes of content", marker, len(res.Content))
	}
	if head != strings.Repeat("a", headCap) || tail != strings.Repeat("a", tailCap)+"\nexit code: 0" {
		t.Errorf("head %d bytes, tail %q…", len(head), tail[len(tail)-20:])
	}
	grown := int64(peak.Load()) - int64(base.HeapAlloc)
	t.Logf("heap: %d MiB before, peak %d MiB while 10 MB streamed (+%d KiB)", base.HeapAlloc>>20, peak.Load()>>20, grown>>10)
	if grown > 64<<20 {
		t.Errorf("the heap grew by %d MiB for 10 MB of output; the capture must stay bounded", grown>>20)
	}
}

func TestEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("FOO_API_KEY", "s3cret")
	t.Setenv("GITHUB_TOKEN", "s3cret")
	t.Setenv("HARNESS_INTERNAL", "x")
	t.Setenv("PLUGIN_PROTOCOL_VERSIONS", "1")
	t.Setenv(sdk.Handshake.MagicCookieKey, sdk.Handshake.MagicCookieValue)
	t.Setenv("FOO_VISIBLE", "yes")
	client, _ := connect(t, `{}`)
	res := run(t, client, call("env", 0), nil)
	for _, name := range []string{"FOO_API_KEY", "GITHUB_TOKEN", "HARNESS_INTERNAL", "PLUGIN_PROTOCOL_VERSIONS", sdk.Handshake.MagicCookieKey} {
		if strings.Contains(res.Content, name+"=") {
			t.Errorf("%s reached the command", name)
		}
	}
	if strings.Contains(res.Content, "s3cret") {
		t.Error("a secret value reached the command")
	}
	if !strings.Contains(res.Content, "FOO_VISIBLE=yes\n") {
		t.Errorf("FOO_VISIBLE is missing from %q", res.Content)
	}
}

func TestTimeoutIsClampedToTheMaximum(t *testing.T) {
	t.Parallel()
	client, _ := connect(t, `{"timeout_seconds": 1, "max_timeout_seconds": 2, "sandbox": "off"}`)
	res := run(t, client, call("echo hi", 100), nil)
	want := "hi\nnote: timeout_seconds 100s is above the maximum of 2s; the command ran with a 2s timeout\nexit code: 0"
	if res.Err != nil || res.Content != want {
		t.Errorf("content %q err %v, want %q", res.Content, res.Err, want)
	}
	res = run(t, client, call("sleep 30", 100), nil)
	if res.Err == nil || res.Err.Kind != sdk.KindTimeout || !strings.Contains(res.Content, "timed out after 2s") {
		t.Errorf("content %q err %v, want a timeout after the 2s maximum", res.Content, res.Err)
	}
}

func TestSandboxInProcess(t *testing.T) {
	t.Parallel()
	requireSandbox(t)
	outside := outsideDir(t)
	client, ws := connect(t, `{"sandbox": "workspace-write"}`)
	target := filepath.Join(outside, "x")
	device := "/dev/terminal-sandbox-test-" + sleepMarker()
	t.Cleanup(func() { os.Remove(device) })
	res := run(t, client, call(fmt.Sprintf("touch ok && touch $TMPDIR/ok && echo x >/dev/null && echo inside; touch %s; touch %s", target, device), 0), nil)
	if res.Err != nil || !strings.Contains(res.Content, "inside\n") ||
		!strings.Contains(res.Content, "cannot touch '"+target+"'") || !strings.Contains(res.Content, "cannot touch '"+device+"'") {
		t.Fatalf("content %q err %v: want writes inside to work and those outside refused", res.Content, res.Err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		t.Errorf("the write in the workspace did not happen: %v", err)
	}
	for _, p := range []string{target, device} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the write to %s happened: %v", p, err)
		}
	}
	// The plugin (here: the test process) is not confined.
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Errorf("the plugin process itself lost write access: %v", err)
	}
}

// outsideDir is a writable directory outside the temp dir, where the
// sandbox must refuse writes.
func outsideDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "terminal-sandbox-test-")
	if err != nil {
		t.Skipf("no writable directory outside the temp dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if rel, err := filepath.Rel(os.TempDir(), dir); err == nil && !strings.HasPrefix(rel, "..") {
		t.Skipf("%s is inside the temp dir %s", dir, os.TempDir())
	}
	return dir
}

// TestSandboxDegradesWithANote plays kernels without user namespaces
// and without Landlock: the command runs with what is left, and its result
// says in one line what is missing.
func TestSandboxDegradesWithANote(t *testing.T) {
	// Not parallel: it plays an old kernel for the whole package.
	defer func(probe func() int) { kernelLandlockABI = probe }(kernelLandlockABI)
	defer func(probe func(string, string) error) { probeNamespaces = probe; resetNamespaceProbe() }(probeNamespaces)
	outside := outsideDir(t)
	target := filepath.Join(outside, "x")
	client, ws := connect(t, `{}`)

	probeNamespaces = func(string, string) error { return errors.New("user namespaces are disabled") }
	resetNamespaceProbe()
	if sandboxAvailable() == nil {
		res := run(t, client, call("touch ran; touch "+target, 0), nil)
		if !strings.Contains(res.Content, "note: the sandbox is partial here (namespaces: user namespaces are disabled)") ||
			!strings.HasSuffix(res.Content, "exit code: 1") {
			t.Errorf("Landlock only: content %q err %v, want the note and the write outside refused", res.Content, res.Err)
		}
		if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Landlock only: the write outside happened")
		}
		landlockScopes(t, client)
	}
	for abi, reason := range map[int]string{0: "no Landlock", 2: "Landlock ABI 2"} {
		kernelLandlockABI = func() int { return abi }
		os.Remove(filepath.Join(ws, "ran"))
		res := run(t, client, call("touch ran", 0), nil)
		if res.Err != nil || !strings.Contains(res.Content, "note: no sandbox on this system") ||
			!strings.Contains(res.Content, reason) || !strings.Contains(res.Content, "ran unsandboxed") {
			t.Errorf("ABI %d: content %q err %v, want the command run with a note", abi, res.Content, res.Err)
		}
		if _, err := os.Stat(filepath.Join(ws, "ran")); err != nil {
			t.Errorf("ABI %d: the command did not run: %v", abi, err)
		}
	}
}

// landlockScopes checks, without namespaces, that Landlock's signal scope
// (ABI 6) keeps a command from killing a process outside the sandbox.
func landlockScopes(t *testing.T, client *sdk.ToolClient) {
	t.Helper()
	if abi := kernelLandlockABI(); abi < helper.ScopeABI {
		t.Logf("Landlock ABI %d has no scopes (ABI %d): signals are confined by the PID namespace only", abi, helper.ScopeABI)
		return
	}
	pid, end := sandboxtest.StartSibling(t)
	res := run(t, client, call(fmt.Sprintf("kill -KILL %d", pid), 0), nil)
	if strings.HasSuffix(res.Content, "exit code: 0") {
		t.Errorf("Landlock only: the kill succeeded: %s", res.Content)
	}
	if sig := end(); sig != syscall.SIGTERM {
		t.Errorf("Landlock only: the sibling was ended by %v, not by the test's SIGTERM", sig)
	}
}

// TestMisbuiltHostRefuses covers binaries whose copies would not act as the
// helper: they must refuse to run commands, never re-execute themselves.
func TestMisbuiltHostRefuses(t *testing.T) {
	// Not parallel: it changes the process's environment.
	client, ws := connect(t, `{}`)

	t.Run("a helper copy that did not divert", func(t *testing.T) {
		t.Setenv(helper.Env, "1")
		res := run(t, client, call("touch ran", 0), nil)
		if res.Err == nil || res.Err.Kind != sdk.KindInternal || !strings.Contains(res.Err.Message, "refusing") {
			t.Errorf("err = %v", res.Err)
		}
	})
	if _, err := os.Stat(filepath.Join(ws, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a command ran")
	}
	res := run(t, client, call("env", 0), nil)
	if strings.Contains(res.Content, helper.Env) {
		t.Errorf("the helper's marker reached the command: %q", res.Content)
	}
}
