package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/pgtest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// Approvals from anywhere, on one PostgreSQL store shared by two machines.
// Machine B is simulated by another HARNESS_HOST (the name the store records
// a session's machine under): the harness on "B" sees a session whose
// workspace is on "A", so it records the approval and does not run the
// command; the next --resume on "A" runs it. A third approver is told the
// action was decided already. `actions list` shows where each action runs.
func TestPostgresApproveFromAnotherMachine(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	dir := t.TempDir()
	onA := append([]string{"HARNESS_STORE=" + url, "HARNESS_HOST=machine-a"}, keyEnv...)
	onB := []string{"HARNESS_STORE=" + url, "HARNESS_HOST=machine-b"}
	action, id := deferTouch(t, dir, onA)
	ran := filepath.Join(dir, "ran.txt")

	// B lists it from anywhere, with its workspace and machine.
	l := harness(t, t.TempDir(), onB, "actions", "list", "--all")
	if l.code != 0 || !strings.Contains(l.stdout, action) || !strings.Contains(l.stdout, "workspace "+dir+" on machine-a") {
		t.Errorf("actions list on B: exit %d, want the action with its workspace on machine-a:\n%s%s", l.code, l.stdout, l.stderr)
	}

	a := harness(t, t.TempDir(), onB, "actions", "approve", action)
	if a.code != 0 || !strings.Contains(a.stdout, "not run here") || !strings.Contains(a.stdout, "machine-a") {
		t.Fatalf("approve on B: exit %d, want 0 and 'not run here':\n%s%s", a.code, a.stdout, a.stderr)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatalf("the approval on B ran the command (%v): B does not hold the workspace", err)
	}
	again := harness(t, t.TempDir(), append(onB[:1:1], "HARNESS_HOST=machine-c"), "actions", "approve", action)
	if again.code != 1 || !strings.Contains(again.stderr, "already approved") {
		t.Errorf("second approver: exit %d, want 1 and 'already approved':\n%s", again.code, again.stderr)
	}

	res := harness(t, dir, onA, "run", "--json", "--no-input", "--resume", id, "agent.hcl")
	if res.code != 0 {
		t.Fatalf("resume on A: exit %d\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("the resumed run on A did not run the approved command: %v", err)
	}
	if results := eventData(parseEvents(t, res.stdout), "tool.result"); len(results) == 0 {
		t.Errorf("the resumed run printed no tool.result for the approved call")
	}
	if s := harness(t, t.TempDir(), onB, "actions", "list", "--all"); !strings.Contains(s.stdout, "executed") {
		t.Errorf("after the resume the action is not executed:\n%s", s.stdout)
	}
}

// A machine where the session's workspace does not exist (here: the same
// machine, the workspace moved away; any store) records the approval
// without running anything; the resume, once the workspace is back, runs it.
func TestApproveWithoutTheWorkspace(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ws")
	action, id := deferTouch(t, dir, keyEnv)

	moved := dir + ".away"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	a := harness(t, t.TempDir(), nil, "actions", "approve", action)
	if a.code != 0 || !strings.Contains(a.stdout, "does not exist on this machine") {
		t.Fatalf("approve without the workspace: exit %d, want 0 and 'does not exist on this machine':\n%s%s", a.code, a.stdout, a.stderr)
	}
	if _, err := os.Stat(filepath.Join(moved, "ran.txt")); !os.IsNotExist(err) {
		t.Fatalf("the command ran although the workspace is not here (%v)", err)
	}
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	res := harness(t, dir, keyEnv, "run", "--json", "--no-input", "--resume", id, "agent.hcl")
	if res.code != 0 {
		t.Fatalf("resume: exit %d\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err != nil {
		t.Errorf("the resume did not run the approved command: %v", err)
	}
}

// deferTouch runs, in dir with env, an agent (unattended = "defer") whose
// model asks to run `touch ran.txt` and then waits: the run ends with exit
// 4. It returns the pending action's id and the session's.
func deferTouch(t *testing.T, dir string, env []string) (action, session string) {
	t.Helper()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: "call_t", Name: "terminal", Arguments: `{"command":"touch ran.txt"}`}}}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Waiting for approval."}),
	)
	fake.Repeat(answer)
	writeFile(t, filepath.Join(dir, "agent.hcl"), withTools(deepseekConfig(fake.URL, "  permissions {\n    unattended = \"defer\"\n  }", ""), "terminal"))
	r := harness(t, dir, env, "run", "--json", "--no-input", "agent.hcl", "Touch the file")
	if r.code != 4 {
		t.Fatalf("run: exit %d, want 4 (an action awaits approval)\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	proposed := eventData(evs, "action.proposed")
	if len(proposed) != 1 {
		t.Fatalf("%d actions proposed, want 1", len(proposed))
	}
	return toString(proposed[0]["action_id"]), evs[0].Session
}
