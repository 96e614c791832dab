package pluginhost_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

var testPlugin string // path of the built testdata/testplugin binary

func TestMain(m *testing.M) {
	if os.Getenv("PLUGINHOST_HELPER_HOST") != "" {
		runHelperHost()
		return
	}
	testPlugin = testkit.MustBuild("./testdata/testplugin")
	testkit.Main(m)
}

func sha(t *testing.T, path string) string {
	t.Helper()
	sum, err := pluginhost.FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func newHost(t *testing.T, specs ...pluginhost.Spec) *pluginhost.Host {
	t.Helper()
	h, err := pluginhost.New(pluginhost.Options{SelfExe: testPlugin})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if err := h.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(h.Close)
	return h
}

func call(t *testing.T, h *pluginhost.Host, plugin, tool string) (sdk.Result, error) {
	t.Helper()
	th, err := h.Tool(plugin)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return th.Execute(ctx, sdk.Call{ID: "c", Tool: tool, Arguments: json.RawMessage(`{}`)}, nil)
}

func TestBuiltinStartsLazilyAndAnswers(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
	if pid := h.PID("tp"); pid != 0 {
		t.Fatalf("plugin started before first use (pid %d)", pid)
	}
	res, err := call(t, h, "tp", "noop")
	if err != nil || res.Content != "ok" {
		t.Fatalf("noop: %+v %v", res, err)
	}
	big, err := call(t, h, "tp", "big")
	if err != nil || len(big.Content) != 64<<10 {
		t.Fatalf("64 KiB result: len %d, %v", len(big.Content), err)
	}
}

func TestCrashMidCallIsProcessExitAndNextCallRestarts(t *testing.T) {
	t.Parallel()
	h, th := configuredBuiltin(t, "/ws-one")
	ctx := context.Background()
	first := h.PID("tp")

	done := sleeping(t, th)
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var se *sdk.Error
	if !errors.As(err, &se) || se.Kind != sdk.KindProcessExit {
		t.Fatalf("want process_exit, got %v", err)
	}
	if !strings.Contains(se.Message, "testplugin: serving pid") {
		t.Errorf("process_exit should carry the plugin's stderr, got %q", se.Message)
	}

	res, err := th.Execute(ctx, sdk.Call{ID: "c2", Tool: "workspace", Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil {
		t.Fatalf("call after crash: %v", err)
	}
	if res.Content != "/ws-one" {
		t.Errorf("configuration not replayed on the fresh process: %q", res.Content)
	}
	if second := h.PID("tp"); second == 0 || second == first {
		t.Errorf("expected a fresh process, pid before %d after %d", first, second)
	}
}

// sleeping starts the test plugin's sleep call on th and returns once the
// plugin is in it; the call's error arrives on the channel when it ends.
func sleeping(t *testing.T, th *pluginhost.ToolHandle) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	arrived := make(chan struct{})
	var once sync.Once
	go func() {
		_, err := th.Execute(context.Background(), sdk.Call{ID: "s", Tool: "sleep", Arguments: json.RawMessage(`{}`)}, func(string, string) {
			once.Do(func() { close(arrived) })
		})
		done <- err
	}()
	select {
	case <-arrived: // the plugin is in the call
	case err := <-done:
		t.Fatalf("the sleep call ended before the plugin was in it: %v", err)
	}
	return done
}

func TestPanicCarriesStderr(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
	_, err := call(t, h, "tp", "crash")
	var se *sdk.Error
	if !errors.As(err, &se) || se.Kind != sdk.KindProcessExit {
		t.Fatalf("want process_exit, got %v", err)
	}
	for _, want := range []string{"about to crash", "panic: boom from a plugin goroutine"} {
		if !strings.Contains(se.Message, want) {
			t.Errorf("process_exit message lacks %q:\n%s", want, se.Message)
		}
	}
	if res, err := call(t, h, "tp", "noop"); err != nil || res.Content != "ok" {
		t.Fatalf("call after panic: %+v %v", res, err)
	}
}

// TestCrashReportIsRedacted: the stderr tail of a crashed plugin carries
// no value of the host's secrets (a provider may print its key as it dies).
func TestCrashReportIsRedacted(t *testing.T) {
	t.Parallel()
	const secret = "boom from a plugin goroutine" // what the test plugin prints
	secrets := &redact.Secrets{}
	secrets.Add(secret)
	h, err := pluginhost.New(pluginhost.Options{SelfExe: testPlugin, Secrets: secrets})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	if err := h.Register(pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true}); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, h, "tp", "crash")
	if sdk.KindOf(err) != sdk.KindProcessExit || strings.Contains(err.Error(), secret) ||
		!strings.Contains(err.Error(), "panic: "+redact.Marker) {
		t.Fatalf("want a process_exit report with the secret redacted, got %v", err)
	}
}

func TestPluginEnvironmentIsExplicit(t *testing.T) {
	t.Setenv("HARNESS_TEST_SECRET", "do-not-leak")
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Path: testPlugin, SHA256: sha(t, testPlugin), Env: []string{"GIVEN=yes"}})
	res, err := call(t, h, "tp", "env")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Content, "do-not-leak") {
		t.Errorf("plugin saw a variable the config did not give it:\n%s", res.Content)
	}
	if !strings.Contains(res.Content, "GIVEN=yes") {
		t.Errorf("plugin lacks the variable it was given:\n%s", res.Content)
	}
}

func TestChecksums(t *testing.T) {
	t.Parallel()
	actual := sha(t, testPlugin)
	wrong := strings.Repeat("0", 64)
	tests := []struct {
		name, sum string
		want      []string
	}{
		{"wrong", wrong, []string{testPlugin, wrong, actual}},
		{"missing", "", []string{testPlugin, "harness plugins lock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Path: testPlugin, SHA256: tt.sum})
			_, err := call(t, h, "tp", "noop")
			var ie *pluginhost.IntegrityError
			if !errors.As(err, &ie) {
				t.Fatalf("want an integrity error, got %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
		})
	}
	t.Run("right", func(t *testing.T) {
		h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Path: testPlugin, SHA256: "sha256:" + actual})
		if res, err := call(t, h, "tp", "noop"); err != nil || res.Content != "ok" {
			t.Fatalf("verified plugin: %+v %v", res, err)
		}
	})
}

func TestStdoutBeforeHandshakeIsAClearError(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true, Env: []string{"TESTPLUGIN_STDOUT=1"}})
	_, err := call(t, h, "tp", "noop")
	if err == nil || !strings.Contains(err.Error(), "printed to stdout before the handshake") {
		t.Fatalf("want a clear stdout error, got %v", err)
	}
}

func TestWarmStartsConcurrently(t *testing.T) {
	t.Parallel()
	h := newHost(t,
		pluginhost.Spec{Name: "a", Kind: sdk.PluginTool, Builtin: true},
		pluginhost.Spec{Name: "b", Kind: sdk.PluginTool, Builtin: true},
	)
	if err := h.Warm(context.Background(), "a", "b"); err != nil {
		t.Fatal(err)
	}
	if h.PID("a") == 0 || h.PID("b") == 0 || h.PID("a") == h.PID("b") {
		t.Fatalf("pids a=%d b=%d", h.PID("a"), h.PID("b"))
	}
	h.Close()
	for _, name := range []string{"a", "b"} {
		if h.PID(name) != 0 {
			t.Errorf("%s still running after Close", name)
		}
	}
}

func TestWrongKindAndUnknownName(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
	if _, err := h.Provider("tp"); err == nil || !strings.Contains(err.Error(), "not a provider plugin") {
		t.Errorf("wrong kind: %v", err)
	}
	if _, err := h.Tool("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown: %v", err)
	}
}

// runHelperHost is a harness-like host in its own process: it starts two
// plugins, prints their pids and waits to be killed.
func runHelperHost() {
	h, err := pluginhost.New(pluginhost.Options{SelfExe: os.Getenv("PLUGINHOST_HELPER_HOST")})
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"a", "b"} {
		_ = h.Register(pluginhost.Spec{Name: name, Kind: sdk.PluginTool, Builtin: true})
	}
	if err := h.Warm(context.Background(), "a", "b"); err != nil {
		panic(err)
	}
	fmt.Println(h.PID("a"), h.PID("b"))
	// Wait to be killed; a test that dies without killing it closes
	// the pipe, and the helper ends with it.
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func TestHostSIGKILLLeavesNoPlugin(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PLUGINHOST_HELPER_HOST="+testPlugin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe() // held open: the helper runs until killed
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper host: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(line) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	if len(pids) != 2 {
		t.Fatalf("helper printed %q", line)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("plugin %d not running before the kill", pid)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for _, pid := range pids {
		if !testkit.Eventually(10*time.Second, func() bool { return !alive(pid) }) {
			t.Errorf("plugin %d outlived its host", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesized command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}
