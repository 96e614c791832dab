package main_test

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the store's driver, for its integrity check

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// proc is a live process seen in /proc.
type proc struct {
	pid     int
	cwd     string
	cmdline string // arguments joined by spaces
}

// procsUnder lists the live processes whose working directory is dir or
// inside it. Every process a run starts (the harness, its plugins, the
// terminal's commands and their children) inherits the run's directory
// unless it changes it, and each test has a directory of its own: the cwd is
// a per-test marker that needs no cooperation from the processes.
func procsUnder(dir string) []proc {
	dir, _ = filepath.EvalSymlinks(dir)
	var out []proc
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if errors.Is(err, fs.ErrPermission) {
			cwd, err = startedDir(pid)
		}
		if err != nil || (cwd != dir && !strings.HasPrefix(cwd, dir+"/")) {
			continue // a zombie has no cwd: it is not running
		}
		if state, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); zombie(state) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, proc{pid: pid, cwd: cwd, cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))})
	}
	return out
}

// started maps the pid of each live harness a test started to its
// directory. harness and its plugins are not dumpable, so a plain user
// cannot read their cwd; procsUnder then places them by their ancestry.
var started sync.Map // int → string

// startedDir returns the directory of the started harness pid descends
// from.
func startedDir(pid int) (string, error) {
	for range 64 {
		if d, ok := started.Load(pid); ok {
			return filepath.EvalSymlinks(d.(string))
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return "", err
		}
		fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
		if len(fields) < 2 {
			break
		}
		if pid, err = strconv.Atoi(string(fields[1])); err != nil || pid <= 1 {
			break
		}
	}
	return "", fs.ErrNotExist
}

// zombie says whether a /proc/PID/stat line is of a zombie or dead task.
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// waitDead waits up to within for process pid to have exited (a zombie
// not yet reaped, or gone): a SIGKILL is delivered at once, but a large
// process (a race-instrumented one above all) takes a while to tear its
// memory down, with its sockets still open, so a call sent meanwhile
// reaches a process that is about to close them.
func waitDead(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	if !testkit.Eventually(within, func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || zombie(stat)
	}) {
		t.Fatalf("process %d still runs %s after SIGKILL", pid, within)
	}
}

// assertNoProcsLeft waits up to within for every process under dir to be
// gone, then fails the test naming the survivors (and kills them, so one
// failure does not leak into other tests).
func assertNoProcsLeft(t *testing.T, dir string, within time.Duration) {
	t.Helper()
	var left []proc
	testkit.Eventually(within, func() bool { left = procsUnder(dir); return len(left) == 0 })
	for _, p := range left {
		t.Errorf("process outlived the run: pid %d %q (cwd %s)", p.pid, p.cmdline, p.cwd)
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// findProc waits up to within for a process under dir whose command line
// contains every one of parts.
func findProc(t *testing.T, dir string, within time.Duration, parts ...string) proc {
	t.Helper()
	var found proc
	if !testkit.Eventually(within, func() bool {
		for _, p := range procsUnder(dir) {
			all := true
			for _, part := range parts {
				all = all && strings.Contains(p.cmdline, part)
			}
			if all {
				found = p
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no process %q under %s; running: %v", parts, dir, procsUnder(dir))
	}
	return found
}

// liveRun is a `harness run --json --no-input` in progress.
type liveRun struct {
	cmd    *exec.Cmd
	sc     *bufio.Scanner
	lines  []string
	mu     sync.Mutex
	stderr bytes.Buffer
}

// startLive starts `harness run --json --no-input ARGS` in dir with env added
// to the test's environment; stderr is kept.
func startLive(t *testing.T, dir string, env []string, args ...string) *liveRun {
	t.Helper()
	return startLiveBin(t, harnessBin, dir, env, args...)
}

// startLiveBin is startLive with the harness binary at bin.
func startLiveBin(t *testing.T, bin, dir string, env []string, args ...string) *liveRun {
	t.Helper()
	r := &liveRun{}
	r.cmd = exec.Command(bin, append([]string{"run", "--json", "--no-input"}, args...)...)
	r.cmd.Dir = dir
	r.cmd.Env = testEnv(t, env)
	r.cmd.Stderr = &lockedWriter{mu: &r.mu, w: &r.stderr}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := r.cmd.Process.Pid
	started.Store(pid, dir)
	t.Cleanup(func() { _ = r.cmd.Process.Kill(); _ = r.cmd.Wait(); started.Delete(pid) })
	r.sc = bufio.NewScanner(out)
	r.sc.Buffer(make([]byte, 1<<20), 16<<20)
	return r
}

// until reads events up to and including the first of type typ.
func (r *liveRun) until(t *testing.T, typ string) {
	t.Helper()
	for r.sc.Scan() {
		r.lines = append(r.lines, r.sc.Text())
		if strings.Contains(r.sc.Text(), `"type":"`+typ+`"`) {
			return
		}
	}
	t.Fatalf("run ended before a %s event; got:\n%s\nstderr:\n%s", typ, strings.Join(r.lines, "\n"), r.stderrText())
}

// wait reads the rest of the events and returns the exit code.
func (r *liveRun) wait(t *testing.T) int {
	t.Helper()
	for r.sc.Scan() {
		r.lines = append(r.lines, r.sc.Text())
	}
	err := r.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

func (r *liveRun) events(t *testing.T) []event {
	t.Helper()
	return parseEvents(t, strings.Join(r.lines, "\n")+"\n")
}

func (r *liveRun) stderrText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eventData returns the data of every event of type typ, decoded.
func eventData(evs []event, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev.Type == typ {
			var d map[string]any
			_ = json.Unmarshal(ev.Data, &d)
			out = append(out, d)
		}
	}
	return out
}

// errorKind returns the kind of the run's error event, "" without one.
func errorKind(evs []event) string {
	errs := eventData(evs, "error")
	if len(errs) == 0 {
		return ""
	}
	kind, _ := errs[len(errs)-1]["kind"].(string)
	return kind
}

// resultErrorKinds returns, per tool.result in order, the error kind ("" for
// a success).
func resultErrorKinds(evs []event) []string {
	var out []string
	for _, d := range eventData(evs, "tool.result") {
		kind := ""
		if e, ok := d["error"].(map[string]any); ok {
			kind, _ = e["kind"].(string)
		}
		out = append(out, kind)
	}
	return out
}

// endStatus is the status of the session.ended event.
func endStatus(evs []event) string {
	ends := eventData(evs, "session.ended")
	if len(ends) == 0 {
		return ""
	}
	s, _ := ends[0]["status"].(string)
	return s
}

// withProvider adds attributes to the provider block of a deepseekConfig.
func withProvider(cfg, attrs string) string {
	return strings.Replace(cfg, "  api_key  = env(\"TEST_DEEPSEEK_KEY\")\n", "  api_key  = env(\"TEST_DEEPSEEK_KEY\")\n"+attrs, 1)
}

// withTools replaces the agent's whitelist of a deepseekConfig.
func withTools(cfg string, tools ...string) string {
	q := make([]string, len(tools))
	for i, tl := range tools {
		q[i] = strconv.Quote(tl)
	}
	return strings.Replace(cfg, `tools = ["read_file", "search_workspace"]`, "tools = ["+strings.Join(q, ", ")+"]", 1)
}

func terminalCall(id, command string) fakedeepseek.Turn {
	args, _ := json.Marshal(map[string]any{"command": command})
	return fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: id, Name: "terminal", Arguments: string(args)}}}
}

var answer = fakedeepseek.Scripted(fakedeepseek.Turn{Text: "All done."})

// TestFaultProvider injects each provider fault of DESIGN §5 with the fake
// DeepSeek server, through the real binary and provider plugin. Retries
// really sleep (0.5 s backoff and up), so the cases run in parallel.
func TestFaultProvider(t *testing.T) {
	t.Parallel()
	// A tool call whose arguments are long enough that the stream is cut in
	// their middle.
	longPath := "notes/" + strings.Repeat("deep/", 60) + "never-read.md"
	halfCall := fakedeepseek.Scripted(readCall("call_cut", longPath)).TruncateAfter(1500)
	tests := []struct {
		name     string
		provider string // extra provider attributes
		key      string // the key the fake requires; "" accepts any
		queue    []fakedeepseek.Response
		repeat   *fakedeepseek.Response
		exit     int
		kind     string   // the error event's kind ("" when the run succeeds)
		retries  []string // kinds of the llm.retry events, in order
		requests int
	}{
		{name: "429_retry_after_then_success", exit: 0, retries: []string{"rate_limited"}, requests: 2,
			queue: []fakedeepseek.Response{fakedeepseek.StatusError(429).WithRetryAfter("1"), answer}},
		{name: "500_then_success", exit: 0, retries: []string{"provider_unavailable"}, requests: 2,
			queue: []fakedeepseek.Response{fakedeepseek.StatusError(500), answer}},
		{name: "503_twice_then_success", exit: 0, retries: []string{"provider_unavailable", "provider_unavailable"}, requests: 3,
			queue: []fakedeepseek.Response{fakedeepseek.StatusError(503), fakedeepseek.StatusError(503), answer}},
		{name: "503_until_retries_run_out", exit: 1, kind: "provider_unavailable", requests: 4,
			retries: []string{"provider_unavailable", "provider_unavailable", "provider_unavailable"},
			repeat:  new(fakedeepseek.StatusError(503))},
		{name: "401_is_not_retried", exit: 1, kind: "auth", requests: 1, key: "sk-the-right-key-00000000",
			queue: []fakedeepseek.Response{answer}},
		{name: "402_is_not_retried", exit: 1, kind: "billing", requests: 1,
			queue: []fakedeepseek.Response{fakedeepseek.StatusError(402), answer}},
		{name: "truncated_mid_tool_call", exit: 0, retries: []string{"truncated"}, requests: 2,
			queue: []fakedeepseek.Response{halfCall, answer}},
		{name: "keepalive_only_stall", provider: "  timeout_first_token = \"1s\"\n", exit: 1, kind: "timeout", requests: 4,
			retries: []string{"timeout", "timeout", "timeout"},
			repeat:  new(fakedeepseek.KeepAliveStall(100 * time.Millisecond))},
		{name: "empty_deltas_only_stall", provider: "  timeout_first_token = \"1s\"\n", exit: 1, kind: "timeout", requests: 4,
			retries: []string{"timeout", "timeout", "timeout"},
			repeat:  new(fakedeepseek.Endless("", 100*time.Millisecond))},
		{name: "error_object_mid_stream", exit: 0, retries: []string{"provider_unavailable"}, requests: 2,
			queue: []fakedeepseek.Response{
				fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Half an answer that stops"}).ErrorAfter(3, "Server overloaded mid-stream", "server_error", "server_overloaded"),
				answer}},
		{name: "malformed_chunk", exit: 1, kind: "stream_violation", requests: 1,
			queue: []fakedeepseek.Response{fakedeepseek.Scripted(fakedeepseek.Turn{Text: "An answer with a broken chunk"}).MalformedAfter(2), answer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := fakedeepseek.New(t, tt.queue...)
			if tt.repeat != nil {
				fake.Repeat(*tt.repeat)
			}
			if tt.key != "" {
				fake.RequireKey(tt.key)
			}
			run := runFake(t, withProvider(deepseekConfig(fake.URL, "", ""), tt.provider), nil)
			if run.result.code != tt.exit {
				t.Errorf("exit %d, want %d\nstderr:\n%s", run.result.code, tt.exit, run.result.stderr)
			}
			if got := errorKind(run.events); got != tt.kind {
				t.Errorf("error kind %q, want %q", got, tt.kind)
			}
			var retries []string
			for _, d := range eventData(run.events, "llm.retry") {
				retries = append(retries, fmt.Sprint(d["kind"]))
			}
			if strings.Join(retries, ",") != strings.Join(tt.retries, ",") {
				t.Errorf("llm.retry kinds %v, want %v", retries, tt.retries)
			}
			if n := len(fake.Requests()); n != tt.requests {
				t.Errorf("%d requests reached the server, want %d", n, tt.requests)
			}
			if n := len(eventData(run.events, "tool.call")); n != 0 {
				t.Errorf("%d tool calls ran; a failed attempt's calls are void", n)
			}
			wantStatus := "completed"
			if tt.exit != 0 {
				wantStatus = "error"
			}
			if got := endStatus(run.events); got != wantStatus {
				t.Errorf("session ended %q, want %q", got, wantStatus)
			}
			switch tt.name {
			case "429_retry_after_then_success":
				if d := eventData(run.events, "llm.retry"); len(d) == 1 && d[0]["delay_ms"].(float64) < 1000 {
					t.Errorf("retried after %v ms; Retry-After said 1 s", d[0]["delay_ms"])
				}
			case "truncated_mid_tool_call":
				// The cut attempt had streamed part of the call before the
				// retry voided it.
				var partial bool
				for _, ev := range run.events {
					partial = partial || ev.Type == "assistant.chunk" && strings.Contains(string(ev.Data), `"tool_call"`)
					if ev.Type == "llm.retry" {
						break
					}
				}
				if !partial {
					t.Error("the stream was not cut inside a tool call: no tool_call chunk before the retry")
				}
			case "401_is_not_retried":
				// The fake echoes the key's last four characters, as DeepSeek does.
				for _, d := range eventData(run.events, "error") {
					if msg := fmt.Sprint(d["message"]); strings.Contains(msg, apiKey[len(apiKey)-4:]) {
						t.Errorf("the 401 error echoes the key's tail: %s", msg)
					}
				}
			}
			if tt.kind != "" && !strings.Contains(run.result.stderr, tt.kind) {
				t.Errorf("stderr does not name the error kind %q:\n%s", tt.kind, run.result.stderr)
			}
			assertNoProcsLeft(t, run.dir, 2*time.Second)
		})
	}
}

// terminalConfig is an agent on the fake server that may run any command.
func terminalConfig(url string) string {
	return withTools(deepseekConfig(url, "  permissions {\n    terminal = \"allow\"\n  }", ""), "terminal")
}

var keyEnv = []string{"TEST_DEEPSEEK_KEY=" + apiKey}

// TestFaultPlugin kills and stalls tool plugins in the middle of a call.
func TestFaultPlugin(t *testing.T) {
	t.Parallel()
	t.Run("sigkill_mid_call", func(t *testing.T) {
		t.Parallel()
		fake := fakedeepseek.New(t,
			fakedeepseek.Scripted(terminalCall("call_sleep", "sleep 37.31; echo unreached")),
			fakedeepseek.Scripted(terminalCall("call_after", "echo after the crash")),
			answer)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "agent.hcl"), terminalConfig(fake.URL))
		live := startLive(t, dir, keyEnv, "agent.hcl", "Run the commands")
		live.until(t, "tool.call")
		plugin := findProc(t, dir, 10*time.Second, "plugin serve --shared") // the terminal runs in the shared built-in process
		findProc(t, dir, 10*time.Second, "sleep 37.31")
		if err := syscall.Kill(plugin.pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if code := live.wait(t); code != 0 {
			t.Errorf("exit %d, want 0\nstderr:\n%s", code, live.stderrText())
		}
		evs := live.events(t)
		if got := strings.Join(resultErrorKinds(evs), ","); got != "process_exit," {
			t.Errorf("tool.result error kinds %q, want the killed call process_exit and the next one fine", got)
		}
		if results := eventData(evs, "tool.result"); len(results) > 0 && !strings.Contains(fmt.Sprint(results[0]["error"]), "killed by SIGKILL") {
			t.Errorf("the crash report does not say how the plugin died: %v", results[0]["error"])
		}
		if results := eventData(evs, "tool.result"); len(results) == 2 && !strings.Contains(fmt.Sprint(results[1]["content"]), "after the crash") {
			t.Errorf("the call after the crash: %v", results[1])
		}
		if len(procsWith(dir, "sleep 37.31")) > 0 {
			t.Error("the command of the killed plugin is still running")
		}
		assertNoProcsLeft(t, dir, 2*time.Second)
	})
	t.Run("hang_past_deadline", func(t *testing.T) {
		t.Parallel()
		// The command and a background grandchild ignore the deadline; the
		// terminal kills the whole process group when timeout_seconds runs out.
		fake := fakedeepseek.New(t,
			fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: "call_hang", Name: "terminal",
				Arguments: `{"command":"sleep 38.52 & sleep 38.52; wait","timeout_seconds":1}`}}}),
			answer)
		start := time.Now()
		run := runFake(t, terminalConfig(fake.URL), nil)
		if run.result.code != 0 {
			t.Errorf("exit %d, want 0\nstderr:\n%s", run.result.code, run.result.stderr)
		}
		if got := strings.Join(resultErrorKinds(run.events), ","); got != "timeout" {
			t.Errorf("tool.result error kinds %q, want timeout", got)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("the run took %v: the 1 s deadline did not cut the call short", took)
		}
		assertNoProcsLeft(t, run.dir, 2*time.Second)
	})
}

// procsWith lists the processes under dir whose command line contains s.
func procsWith(dir, s string) []proc {
	var out []proc
	for _, p := range procsUnder(dir) {
		if strings.Contains(p.cmdline, s) {
			out = append(out, p)
		}
	}
	return out
}

// startSleeper starts a run whose terminal command and its background
// grandchild sleep for marker seconds, and returns once both are running;
// env is added to the run's environment.
func startSleeper(t *testing.T, marker string, env ...string) (*liveRun, string) {
	t.Helper()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(terminalCall("call_sleep", "sleep "+marker+" & sleep "+marker+"; wait")),
		answer)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), terminalConfig(fake.URL))
	live := startLive(t, dir, append(slices.Clone(keyEnv), env...), "agent.hcl", "Sleep")
	live.until(t, "tool.call")
	if !testkit.Eventually(10*time.Second, func() bool { return len(procsWith(dir, "sleep "+marker)) >= 2 }) {
		t.Fatalf("the command and its grandchild are not running: %v", procsUnder(dir))
	}
	return live, dir
}

// ownStore is the environment giving a subtest a store of its own, and
// that store's file: a subtest that checks its store's integrity must not
// share it with a parallel one, whose harness may be writing it, or
// recovering it after a SIGKILL, at that moment (SQLITE_BUSY).
func ownStore(t *testing.T) ([]string, string) {
	state := filepath.Join(stateDir(t), strings.ReplaceAll(t.Name(), "/", "-"))
	return []string{"HARNESS_STATE_DIR=" + state}, filepath.Join(state, "harness.db")
}

// TestFaultHost kills or interrupts harness itself in the middle of a
// terminal command that has a background grandchild.
func TestFaultHost(t *testing.T) {
	t.Parallel()
	t.Run("sigkill_leaves_no_orphans", func(t *testing.T) {
		t.Parallel()
		live, dir := startSleeper(t, "39.61")
		plugins := len(procsWith(dir, "plugin serve"))
		if err := live.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if code := live.wait(t); code != -1 {
			t.Errorf("exit %d, want death by SIGKILL", code)
		}
		if plugins < 2 {
			t.Errorf("%d plugin processes were running, want the provider and the terminal", plugins)
		}
		// Nobody cleans up after SIGKILL: the parent-death signals do.
		assertNoProcsLeft(t, dir, 3*time.Second)
	})
	t.Run("sigkill_leaves_the_store_intact", func(t *testing.T) {
		t.Parallel()
		env, store := ownStore(t)
		live, dir := startSleeper(t, "39.62", env...)
		if err := live.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		live.wait(t)
		assertNoProcsLeft(t, dir, 3*time.Second)
		printed := live.lines
		session := live.events(t)[0].Session
		r := harness(t, dir, env, "sessions", "events", "--json", session)
		stored := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
		if r.code != 0 || len(stored) < len(printed) {
			t.Fatalf("sessions events: exit %d, %d events stored, %d printed\n%s", r.code, len(stored), len(printed), r.stderr)
		}
		for i := range printed {
			if stored[i] != printed[i] {
				t.Fatalf("event %d differs:\nprinted %s\nstored  %s", i+1, printed[i], stored[i])
			}
		}
		checkIntegrity(t, store)
		// The workspace's store takes the next run.
		next := fakedeepseek.New(t, answer)
		writeFile(t, filepath.Join(dir, "agent.hcl"), terminalConfig(next.URL))
		if r := harness(t, dir, append(slices.Clone(keyEnv), env...), "run", "--no-input", "agent.hcl", "again"); r.code != 0 {
			t.Errorf("a run after the crash: exit %d\n%s", r.code, r.stderr)
		}
		if list := harness(t, dir, env, "sessions", "list"); list.code != 0 || strings.Count(list.stdout, "\n") < 3 {
			t.Errorf("sessions list after the crash and a new run:\n%s%s", list.stdout, list.stderr)
		}
	})
	t.Run("sigint_exits_130_cleanly", func(t *testing.T) {
		t.Parallel()
		env, store := ownStore(t)
		live, dir := startSleeper(t, "39.63", env...)
		if err := live.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		interrupted := time.Now()
		if code := live.wait(t); code != 130 {
			t.Errorf("exit %d, want 130\nstderr:\n%s", code, live.stderrText())
		}
		t.Logf("harness exited %v after SIGINT", time.Since(interrupted).Round(time.Millisecond))
		evs := live.events(t)
		if got := endStatus(evs); got != "interrupted" || evs[len(evs)-1].Type != "session.ended" {
			t.Errorf("session ended %q (last event %s), want interrupted", got, evs[len(evs)-1].Type)
		}
		if got := strings.Join(resultErrorKinds(evs), ","); got != "canceled" {
			t.Errorf("tool.result error kinds %q, want canceled", got)
		}
		// DESIGN §9: plugins and their children are gone within a second of
		// Ctrl-C; the slack is for a loaded CI machine.
		assertNoProcsLeft(t, dir, 2*time.Second)
		t.Logf("every process was gone %v after SIGINT", time.Since(interrupted).Round(time.Millisecond))
		checkIntegrity(t, store)
	})
}

// checkIntegrity runs SQLite's integrity check on the store file.
func checkIntegrity(t *testing.T, store string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+store+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("store integrity_check = %q, %v", check, err)
	}
}

// storeFullScript runs three sessions in $DIR: the first on a store with
// room, the second while the store cannot grow ($LIMIT before the command,
// or a tmpfs of $TMPFS_SIZE over the state folder), the third after room is
// made again. Then it copies the store to after/, out of the tmpfs.
const storeFullScript = `cd "$DIR" || exit 97
if [ -n "$TMPFS_SIZE" ]; then
  mount -t tmpfs -o size="$TMPFS_SIZE" tmpfs state || exit 98
fi
"$H" run --json --no-input agent.hcl first >first.out 2>first.err; echo $? >first.code
$LIMIT "$H" run --json --no-input agent.hcl second >second.out 2>second.err; echo $? >second.code
if [ -n "$TMPFS_SIZE" ]; then mount -o remount,size=64m state; fi
"$H" run --json --no-input agent.hcl third >third.out 2>third.err; echo $? >third.code
mkdir -p after && cp state/harness.db* after/
`

// TestFaultStore fills the session store in the middle of a run. A tmpfs
// mounted in a private mount namespace (root only; invisible to the rest of
// the machine and gone with the namespace) gives a real full disk (ENOSPC);
// a file size limit (RLIMIT_FSIZE, EFBIG) stands in for a quota.
func TestFaultStore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		wrap     []string // command prefix for the script
		needs    []string // programs the method needs
		env      []string
		hint     string // in the error of the second run
		skipWhen int    // script exit code meaning the method is unavailable here
	}{
		{name: "disk_full", wrap: []string{"unshare", "--mount", "--propagation", "private"}, needs: []string{"unshare", "mount"}, env: []string{"TMPFS_SIZE=384k", "LIMIT="},
			hint: "the disk is full", skipWhen: 98},
		{name: "file_size_limit", needs: []string{"prlimit"}, env: []string{"TMPFS_SIZE=", "LIMIT=prlimit --fsize=393216"},
			hint: "the operating system reported an I/O error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if len(tt.wrap) > 0 && os.Geteuid() != 0 {
				t.Skip("mounting a tmpfs needs root")
			}
			for _, tool := range tt.needs {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed (util-linux)", tool)
				}
			}
			dir := t.TempDir()
			// The second run reads eight big files in one turn: their results
			// (32 KiB each after the output cap) do not fit.
			var reads []fakedeepseek.ToolCall
			files := map[string]string{}
			for i := range 8 {
				name := fmt.Sprintf("big%d.txt", i)
				files[name] = strings.Repeat(fmt.Sprintf("line %d of a file that fills the store\n", i), 4000)
				reads = append(reads, fakedeepseek.ToolCall{ID: fmt.Sprint("call_", i), Name: "read_file", Arguments: fmt.Sprintf(`{"path":%q}`, name)})
			}
			fake := fakedeepseek.New(t, answer, fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: reads}))
			fake.Repeat(answer)
			writeFile(t, filepath.Join(dir, "agent.hcl"), deepseekConfig(fake.URL, "", ""))
			for name, body := range files {
				writeFile(t, filepath.Join(dir, name), body)
			}
			if err := os.Mkdir(filepath.Join(dir, "state"), 0o700); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", storeFullScript)
			if len(tt.wrap) > 0 {
				cmd = exec.Command(tt.wrap[0], append(tt.wrap[1:], "sh", "-c", storeFullScript)...)
			}
			cmd.Env = testEnv(t, append(tt.env, "DIR="+dir, "H="+harnessBin, "TEST_DEEPSEEK_KEY="+apiKey, "HARNESS_STATE_DIR="+filepath.Join(dir, "state")))
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); ok && tt.skipWhen != 0 && ee.ExitCode() == tt.skipWhen {
				t.Skipf("cannot mount a tmpfs here: %s", out)
			} else if err != nil {
				t.Fatalf("script: %v\n%s", err, out)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			codes := strings.Fields(read("first.code") + read("second.code") + read("third.code"))
			if strings.Join(codes, " ") != "0 1 0" {
				t.Errorf("exit codes of the three runs %v, want 0 1 0\nsecond run's stderr:\n%s", codes, read("second.err"))
			}
			if msg := read("second.err"); !strings.Contains(msg, "session store") || !strings.Contains(msg, tt.hint) {
				t.Errorf("the second run's error should name the store and say %q:\n%s", tt.hint, msg)
			}
			t.Logf("the second run's error:\n%s", read("second.err"))
			assertNoProcsLeft(t, dir, 2*time.Second)

			// Nothing committed is lost or damaged: each run's printed events
			// are in the store, in order, and the store passes its integrity
			// check.
			after := filepath.Join(dir, "after")
			checkIntegrity(t, filepath.Join(after, "harness.db"))
			for _, run := range []string{"first", "second", "third"} {
				printed := strings.Split(strings.TrimRight(read(run+".out"), "\n"), "\n")
				var first event
				if err := json.Unmarshal([]byte(printed[0]), &first); err != nil {
					t.Fatalf("%s run printed no events: %q", run, printed[0])
				}
				r := harness(t, dir, nil, "--state-dir", after, "sessions", "events", "--json", first.Session)
				stored := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
				if r.code != 0 || len(stored) < len(printed) {
					t.Fatalf("%s run: %d events printed, %d stored (exit %d %s)", run, len(printed), len(stored), r.code, r.stderr)
				}
				for i := range printed {
					if stored[i] != printed[i] {
						t.Fatalf("%s run: event %d differs:\nprinted %s\nstored  %s", run, i+1, printed[i], stored[i])
					}
				}
			}
		})
	}
}
