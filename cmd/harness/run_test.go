package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
)

type event struct {
	Seq     int64           `json:"seq"`
	Time    string          `json:"time"`
	Session string          `json:"session"`
	Type    string          `json:"type"`
	Data    json.RawMessage `json:"data"`
}

func parseEvents(t *testing.T, out string) []event {
	t.Helper()
	var evs []event
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %d is not a JSON event: %v\n%s", i+1, err, line)
		}
		if _, err := time.Parse(time.RFC3339Nano, ev.Time); err != nil {
			t.Errorf("event %d: time %q is not RFC 3339", ev.Seq, ev.Time)
		}
		evs = append(evs, ev)
	}
	return evs
}

func types(evs []event) map[string]int {
	out := map[string]int{}
	for _, ev := range evs {
		out[ev.Type]++
	}
	return out
}

func quickstart(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testkit.CopyTree(t, filepath.Join(repoRoot(t), "examples/quickstart"), dir, ".harness", "out")
	return dir
}

func TestQuickstartRunsOfflineAndRecordsWhatItPrints(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Summarize the open TODOs")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.Session != evs[0].Session {
			t.Fatalf("event %d: seq %d session %q: not numbered in order within one session", i, ev.Seq, ev.Session)
		}
	}
	got := types(evs)
	for typ, n := range map[string]int{
		"session.started": 1, "session.ended": 1, "agent.response": 1, "artifact.note": 1,
		"tool.call": 7, "tool.result": 7, "action.proposed": 2, "action.decided": 2, "assistant.message": 6,
	} {
		if got[typ] != n {
			t.Errorf("%d %s events, want %d (all: %v)", got[typ], typ, n, got)
		}
	}
	if evs[0].Type != "session.started" || evs[len(evs)-1].Type != "session.ended" {
		t.Errorf("first %s, last %s", evs[0].Type, evs[len(evs)-1].Type)
	}
	var denied, approved bool
	for _, ev := range evs {
		if ev.Type == "action.decided" {
			var d struct{ Decision, By, Rule string }
			_ = json.Unmarshal(ev.Data, &d)
			denied = denied || d.Decision == "denied" && d.By == "policy" && strings.Contains(d.Rule, "rm *")
			approved = approved || d.Decision == "approved" && d.By == "policy" && d.Rule == "allow_commands"
		}
	}
	if !denied || !approved {
		t.Errorf("want the allowed command approved and rm denied by policy (approved %v, denied %v)", approved, denied)
	}
	summary, err := os.ReadFile(filepath.Join(dir, "workspace/out/summary.md"))
	if err != nil || !strings.Contains(string(summary), "greet people by name") || !strings.HasPrefix(string(summary), "# Open TODOs in src/\n") {
		t.Errorf("the write inside permissions.write did not land: %q %v", summary, err)
	}
	if !strings.Contains(r.stderr, "completed · 6 turns") {
		t.Errorf("closing line missing from stderr:\n%s", r.stderr)
	}

	// The store replays exactly what the live run printed.
	replay := harness(t, filepath.Join(dir, "workspace"), nil, "sessions", "events", "--json", evs[0].Session)
	if replay.code != 0 || replay.stdout != r.stdout {
		t.Errorf("sessions events --json differs from the live --json output (exit %d)", replay.code)
	}
	list := harness(t, filepath.Join(dir, "workspace"), nil, "sessions", "list")
	if !strings.Contains(list.stdout, evs[0].Session) || !strings.Contains(list.stdout, "completed") {
		t.Errorf("sessions list:\n%s", list.stdout)
	}
}

func TestQuickstartPlainOutput(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	r := harness(t, dir, nil, "run", "agent.hcl", "Summarize the open TODOs")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"● read_file path=README.md", "+# Open TODOs", "● edit_file", "+# Open TODOs in src/", "✗ denied by policy", "◆ note: TODOs summarized", "completed · 6 turns"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Error("colours on a non-terminal")
	}
}

const sleeperScript = `turn {
  text = "Running a long command."
  tool_call "terminal" {
    arguments = { command = "sleep 41.5; echo done" }
  }
}
turn {
  text = "finished"
}
`

const sleeperConfig = `provider "offline" {
  plugin = "provider-script"
  script = "turns.hcl"
}

model "scripted" {
  provider       = "offline"
  id             = "script"
  context_window = 128000
}

agent "sleeper" {
  model = "scripted"
  tools = ["terminal"]
  permissions {
    terminal = "allow"
  }
}
`

// startRun starts `harness run --json` and returns it with a reader of its
// stdout lines.
func startRun(t *testing.T, dir string, args ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(harnessBin, append([]string{"run", "--json", "--no-input"}, args...)...)
	cmd.Dir = dir
	cmd.Env = testEnv(t, nil)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

// sleepers lists processes running this test's marker command.
func sleepers() []string {
	var found []string
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err == nil && strings.Contains(string(b), "41.5") {
			found = append(found, m)
		}
	}
	return found
}

func waitFor(t *testing.T, sc *bufio.Scanner, typ string) []string {
	t.Helper()
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), `"type":"`+typ+`"`) {
			return lines
		}
	}
	t.Fatalf("run ended before a %s event; got:\n%s", typ, strings.Join(lines, "\n"))
	return nil
}

func TestRunInterruptedBySIGINT(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), sleeperConfig)
	writeFile(t, filepath.Join(dir, "turns.hcl"), sleeperScript)
	cmd, sc := startRun(t, dir, "agent.hcl", "sleep")
	lines := waitFor(t, sc, "tool.call")
	testkit.WaitFor(t, func() bool { return len(sleepers()) > 0 }, "the terminal command to run")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130", err)
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"session.ended"`) || !strings.Contains(last, `"interrupted"`) {
		t.Errorf("last event: %s", last)
	}
	if left := sleepers(); len(left) > 0 {
		t.Errorf("processes outlived the interrupted run: %v", left)
	}
}

func TestRunKilledLeavesEveryPrintedEventInTheStore(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), sleeperConfig)
	writeFile(t, filepath.Join(dir, "turns.hcl"), sleeperScript)
	cmd, sc := startRun(t, dir, "agent.hcl", "sleep")
	printed := waitFor(t, sc, "tool.call")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	var first event
	_ = json.Unmarshal([]byte(printed[0]), &first)
	r := harness(t, dir, nil, "sessions", "events", "--json", first.Session)
	if r.code != 0 {
		t.Fatalf("sessions events: exit %d %s", r.code, r.stderr)
	}
	stored := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(stored) < len(printed) {
		t.Fatalf("store holds %d events, the run printed %d", len(stored), len(printed))
	}
	for i := range printed {
		if stored[i] != printed[i] {
			t.Fatalf("event %d differs:\nprinted %s\nstored  %s", i+1, printed[i], stored[i])
		}
	}
	var left []string
	if !testkit.Eventually(5*time.Second, func() bool { left = sleepers(); return len(left) == 0 }) {
		t.Errorf("processes outlived the killed harness: %v", left)
	}
}

func TestRunStartsOnlyThePluginsTheAgentNeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "turns.hcl"), "turn {\n  text = \"hi\"\n}\n")
	writeFile(t, filepath.Join(dir, "agent.hcl"), strings.Replace(sleeperConfig, `tools = ["terminal"]`, `tools = ["read_file"]`, 1))
	r := harness(t, dir, []string{"HARNESS_LOG=debug"}, "run", "--no-input", "agent.hcl", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for name, want := range map[string]bool{"readfile": true, "provider.offline": true, "writefile": false, "terminal": false, "search": false} {
		started := strings.Contains(r.stderr, "plugin started: name="+name+" ")
		if started != want {
			t.Errorf("plugin %s started: %v, want %v", name, started, want)
		}
	}
}
