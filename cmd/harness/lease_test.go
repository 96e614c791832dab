package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// sessionStatus is the STATUS column of `sessions list` for session id.
func sessionStatus(t *testing.T, dir, id string) string {
	t.Helper()
	list := harness(t, dir, nil, "sessions", "list")
	for _, line := range strings.Split(list.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == id {
			return f[2]
		}
	}
	t.Fatalf("sessions list has no %s: exit %d\n%s%s", id, list.code, list.stdout, list.stderr)
	return ""
}

// TestFaultSecondRunOfALiveSessionIsRefused: while a run holds its
// session, `run --resume` of it is refused naming the holder, and the
// session gets exactly one session.ended (the holder's). Once the holder
// is gone, the session resumes.
func TestFaultSecondRunOfALiveSessionIsRefused(t *testing.T) {
	t.Parallel()
	live, dir := startSleeper(t, "41.17")
	id := live.events(t)[0].Session
	if got := sessionStatus(t, dir, id); got != "running" {
		t.Errorf("a live session lists as %q, want running", got)
	}
	second := harness(t, dir, keyEnv, "run", "--json", "--no-input", "--resume", id, "agent.hcl", "Fork it")
	pid := fmt.Sprintf("pid %d", live.cmd.Process.Pid)
	if second.code != 1 || !strings.Contains(second.stderr, "being run by another harness") || !strings.Contains(second.stderr, pid) {
		t.Errorf("second run --resume: exit %d, want 1 with a message naming %s\n%s", second.code, pid, second.stderr)
	}
	if strings.TrimSpace(second.stdout) != "" {
		t.Errorf("the refused run printed events:\n%s", second.stdout)
	}
	if err := live.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := live.wait(t); code != 130 {
		t.Errorf("the holder exited %d, want 130\n%s", code, live.stderrText())
	}
	evs := storedEvents(t, dir, id)
	if n := len(eventData(evs, "session.ended")); n != 1 {
		t.Errorf("%d session.ended events, want exactly 1 (the holder's)", n)
	}
	if n := len(eventData(evs, "user.message")); n != 0 {
		t.Errorf("the refused run recorded %d messages", n)
	}
	if got := sessionStatus(t, dir, id); got != "interrupted" {
		t.Errorf("after the holder ended: %q, want interrupted", got)
	}
	// The lease went with the holder: the session resumes now.
	if r := harness(t, dir, keyEnv, "run", "--no-input", "--resume", id, "agent.hcl", "Go on"); r.code != 0 {
		t.Errorf("resume after the holder ended: exit %d\n%s", r.code, r.stderr)
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}

// storedEvents reads a session's events from the store.
func storedEvents(t *testing.T, dir, id string) []event {
	t.Helper()
	r := harness(t, dir, nil, "sessions", "events", "--json", id)
	if r.code != 0 {
		t.Fatalf("sessions events: exit %d\n%s", r.code, r.stderr)
	}
	return parseEvents(t, r.stdout)
}

// TestFaultKilledRunIsAbandoned: after kill -9 nobody writes
// session.ended, yet the session never lists as running: its runner's pid
// is dead, so it is abandoned, and it resumes.
func TestFaultKilledRunIsAbandoned(t *testing.T) {
	t.Parallel()
	live, dir := startSleeper(t, "41.18")
	id := live.events(t)[0].Session
	if err := live.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	live.wait(t)
	assertNoProcsLeft(t, dir, 3*time.Second)
	if got := sessionStatus(t, dir, id); got != "abandoned" {
		t.Errorf("a killed run's session lists as %q, want abandoned", got)
	}
	if show := harness(t, dir, nil, "sessions", "show", id); !strings.Contains(show.stdout, "abandoned") {
		t.Errorf("sessions show does not say abandoned:\n%s%s", show.stdout, show.stderr)
	}
	if r := harness(t, dir, keyEnv, "run", "--no-input", "--resume", id, "agent.hcl", "Go on"); r.code != 0 {
		t.Errorf("resume of the abandoned session: exit %d\n%s", r.code, r.stderr)
	}
	if got := sessionStatus(t, dir, id); got != "completed" {
		t.Errorf("after the resume: %q, want completed", got)
	}
}

// TestFaultApproveOfALiveSessionIsRefused: an action deferred by a run
// that is still going cannot be approved under it; once the run is over,
// it can.
func TestFaultApproveOfALiveSessionIsRefused(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(terminalCall("call_later", "echo approved-later > later.txt")),
		fakedeepseek.KeepAliveStall(100*time.Millisecond))
	dir := t.TempDir()
	cfg := withTools(deepseekConfig(fake.URL, "  permissions {\n    terminal   = \"ask\"\n    unattended = \"defer\"\n  }", ""), "terminal")
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	live := startLive(t, dir, keyEnv, "agent.hcl", "Write later.txt")
	live.until(t, "action.proposed")
	action := fmt.Sprint(eventData(live.events(t), "action.proposed")[0]["action_id"])
	live.until(t, "llm.request") // the run goes on, stalled on its next request

	r := harness(t, dir, nil, "actions", "approve", action)
	if r.code == 0 || !strings.Contains(r.stderr, "being run by another harness") {
		t.Errorf("approve under a live run: exit %d, want a refusal naming the run\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "later.txt")); err == nil {
		t.Error("the refused approval ran the command")
	}
	if err := live.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	live.wait(t)
	if r := harness(t, dir, nil, "actions", "approve", action); r.code != 0 {
		t.Errorf("approve after the run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "later.txt")); err != nil || !strings.Contains(string(b), "approved-later") {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}

// TestFaultCutAnswerIsMarkedInShow: harness is killed in the middle of a
// streamed answer and the session is resumed; sessions show marks where
// the cut text ends instead of running it into the resumed answer.
func TestFaultCutAnswerIsMarkedInShow(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "This answer is cut in the middle of a long sentence that goes on"}).Drip(50*time.Millisecond),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Resumed answer."}))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), deepseekConfig(fake.URL, "", ""))
	live := startLive(t, dir, keyEnv, "agent.hcl", "Talk")
	live.until(t, "assistant.chunk")
	id := live.events(t)[0].Session
	if err := live.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	live.wait(t)
	assertNoProcsLeft(t, dir, 3*time.Second)
	if r := harness(t, dir, keyEnv, "run", "--no-input", "--resume", id, "agent.hcl", "Go on"); r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	show := harness(t, dir, nil, "sessions", "show", id).stdout
	cut, marker, resumed := strings.Index(show, "This"), strings.Index(show, "— cut by the crash; resumed"), strings.Index(show, "Resumed answer.")
	if cut < 0 || marker < cut || resumed < marker {
		t.Errorf("sessions show should give the cut text, the marker, then the resumed answer:\n%s", show)
	}
}
