package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/internal/temporaltest"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// startWorker starts `harness worker` in its own process group (its plugins
// with it); kill -9s the group.
func startWorker(t *testing.T, dir, addr, queue string) (kill func()) {
	t.Helper()
	cmd := exec.Command(harnessBin, "worker", "--temporal", addr, "--task-queue", queue)
	cmd.Dir = dir
	cmd.Env = testEnv(t, []string{"TEST_DEEPSEEK_KEY=" + apiKey})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	kill = func() {
		select {
		case <-done:
			return
		default:
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Logf("worker output:\n%s", out.String())
	}
	t.Cleanup(kill)
	return kill
}

// runDetached starts a session on Temporal with `harness run --engine
// temporal --detach ARGS` in dir and returns its id.
func runDetached(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, append([]string{"run", "--engine", "temporal", "--detach"}, args...)...)
	id := strings.Fields(strings.TrimPrefix(r.stdout, "session "))
	if r.code != 0 || len(id) == 0 {
		t.Fatalf("run --detach exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	return id[0]
}

// attach follows session id with `harness sessions attach --json` until it
// ends, and fails unless it exits 0.
func attach(t *testing.T, dir, id string) result {
	t.Helper()
	a := harness(t, dir, nil, "sessions", "attach", "--json", id)
	if a.code != 0 {
		t.Fatalf("sessions attach exit %d\nstdout:\n%s\nstderr:\n%s", a.code, a.stdout, a.stderr)
	}
	return a
}

// openStore opens the test's session store until the test ends.
func openStore(t *testing.T) *session.Store {
	t.Helper()
	store, err := session.Open(storeFile(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// terminalTurn is a model turn that runs command with the terminal.
func terminalTurn(command string) fakedeepseek.Turn {
	args, _ := json.Marshal(map[string]string{"command": command})
	return fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: "c1", Name: "terminal", Arguments: string(args)}}}
}

// temporalAgent is deepseekConfig's agent with the terminal, on Temporal.
func temporalAgent(url, addr, queue string) string {
	permissions := `  permissions {
    terminal = "allow"
    sandbox  = "off"
  }`
	engine := fmt.Sprintf(`
engine "temporal" {
  address    = %q
  task_queue = %q
  heartbeat  = "3s"
}
`, addr, queue)
	return strings.Replace(deepseekConfig(url, permissions, engine), `tools = ["read_file", "search_workspace"]`, `tools = ["read_file", "terminal"]`, 1)
}

func TestTemporalTwoTurns(t *testing.T) {
	addr := temporaltest.Server(t)
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(readCall("c1", "notes.txt")),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The notes say hello."}))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), temporalAgent(fake.URL, addr, "q-two-turns"))
	writeFile(t, filepath.Join(dir, "notes.txt"), "hello from the notes\n")
	startWorker(t, dir, addr, "q-two-turns")

	r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "run", "--json", "--engine", "temporal", "agent.hcl", "Look at the notes")
	if r.code != 0 {
		t.Fatalf("run --engine temporal exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	got := strings.Join(types, " ")
	for _, want := range []string{"session.started", "assistant.message", "tool.result", "agent.response", "session.ended"} {
		if !strings.Contains(got, want) {
			t.Errorf("the run did not show %s; events: %s", want, got)
		}
	}
	if n := strings.Count(got, "tool.result"); n != 1 || strings.Contains(r.stdout, "interrupted") {
		t.Errorf("the read_file call has %d tool.result events, want 1 that is not an interruption:\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "hello from the notes") || !strings.Contains(r.stdout, `"status":"completed"`) {
		t.Errorf("the tool result or the completed status is missing:\n%s", r.stdout)
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("the fake DeepSeek server got %d requests, want 2", n)
	}
}

// A worker killed in the middle of a session: another one continues it from
// the workflow's history. The model request that completed is not sent
// again, and the writing tool call that was in flight is not run again: the
// model is told it was interrupted.
func TestTemporalWorkerKilledMidSession(t *testing.T) {
	addr := temporaltest.Server(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran.txt")
	// The command outlives the killed worker (the terminal runs it in its
	// own process group) until the test ends: it waits for the file done.
	done := filepath.Join(dir, "done")
	cmdLine := fmt.Sprintf("echo ran >> %s; while [ ! -e %s ]; do sleep 0.1; done", marker, done)
	t.Cleanup(func() { writeFile(t, done, "") })
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: "c1", Name: "terminal", Arguments: fmt.Sprintf(`{"command":%q}`, cmdLine)}}}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The command was interrupted; I will not repeat it."}))
	writeFile(t, filepath.Join(dir, "agent.hcl"), temporalAgent(fake.URL, addr, "q-kill"))
	kill := startWorker(t, dir, addr, "q-kill")

	id := runDetached(t, dir, "agent.hcl", "Run the command")

	// Wait until the command runs (its marker line is written).
	testkit.WaitFor(t, func() bool {
		b, err := os.ReadFile(marker)
		return err == nil && strings.Count(string(b), "ran") == 1
	}, "the terminal call to run (its marker line)")
	kill()
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("before the kill the fake got %d requests, want 1", n)
	}
	startWorker(t, dir, addr, "q-kill")

	attach(t, dir, id)
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the fake DeepSeek server got %d requests, want 2: the completed first one must not be sent again", len(reqs))
	}
	var toolMsg string
	for _, m := range messagesOf(t, reqs[1]) {
		if m["role"] == "tool" {
			toolMsg, _ = m["content"].(string)
		}
	}
	if !strings.Contains(toolMsg, "interrupted") || !strings.Contains(toolMsg, "not run again") {
		t.Errorf("the model was not told the call was interrupted; tool message: %q", toolMsg)
	}
	if b, _ := os.ReadFile(marker); strings.Count(string(b), "ran") != 1 {
		t.Errorf("the writing call ran %d times, want once:\n%s", strings.Count(string(b), "ran"), b)
	}
	store := openStore(t)
	info, err := store.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != "completed" {
		t.Errorf("session status = %q, want completed", info.Status)
	}
}

// A pending action of a session on Temporal is a durable wait: `harness
// actions approve` signals the workflow, a worker runs the call, and the
// model hears of it and goes on.
func TestTemporalApproveBySignal(t *testing.T) {
	addr := temporaltest.Server(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "approved.txt")
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(terminalTurn(fmt.Sprintf("echo yes > %s", marker))),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Waiting for approval."}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Done: the command ran."}))
	cfg := strings.Replace(temporalAgent(fake.URL, addr, "q-approve"), `terminal = "allow"`, "terminal   = \"ask\"\n    unattended = \"defer\"", 1)
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	startWorker(t, dir, addr, "q-approve")

	id := runDetached(t, dir, "agent.hcl", "Run the command")
	store := openStore(t)
	var pending []session.Action
	testkit.WaitFor(t, func() bool {
		var err error
		if pending, err = store.Actions(context.Background(), id, "pending"); err != nil {
			t.Fatal(err)
		}
		return len(pending) > 0
	}, "an action to become pending")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	ap := harness(t, dir, nil, "actions", "approve", pending[0].ID)
	if ap.code != 0 || !strings.Contains(ap.stdout, "runs on Temporal") {
		t.Fatalf("actions approve exit %d\nstdout:\n%s\nstderr:\n%s", ap.code, ap.stdout, ap.stderr)
	}
	attach(t, dir, id)
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != "yes" {
		t.Errorf("the approved command did not run on the worker: %v %q", err, b)
	}
	if last := lastMessageOfLast(t, fake, 3); !strings.Contains(last, "was approved and ran") {
		t.Errorf("the model was not told of the approval; last message: %q", last)
	}
}

// storedTypes returns the types of session id's events in the store, in order.
func storedTypes(t *testing.T, store *session.Store, id string) []string {
	t.Helper()
	evs, err := store.Events(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	types := make([]string, len(evs))
	for i, ev := range evs {
		types[i] = ev.Type
	}
	return types
}

// A worker killed while a model response streams: the request is sent
// again on the next worker (it never completed), and the store holds each
// event once — the events the workflow had buffered, the usage, the
// answer — with llm.retry between the lost attempt's partial output and
// the new attempt's.
func TestTemporalWorkerKilledMidStream(t *testing.T) {
	addr := temporaltest.Server(t)
	answer := fakedeepseek.Turn{Text: "The notes say hello, twice over."}
	fake := fakedeepseek.New(t, fakedeepseek.Scripted(answer).StallAfter(3, 500*time.Millisecond), fakedeepseek.Scripted(answer))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), temporalAgent(fake.URL, addr, "q-stream"))
	kill := startWorker(t, dir, addr, "q-stream")

	id := runDetached(t, dir, "agent.hcl", "What do the notes say?")
	store := openStore(t)
	testkit.WaitFor(t, func() bool {
		return slices.Contains(storedTypes(t, store, id), "assistant.chunk")
	}, "the first attempt's partial answer to be in the store")
	kill()
	startWorker(t, dir, addr, "q-stream")

	a := attach(t, dir, id)
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("the fake got %d requests, want 2: the lost one and its resend", n)
	}
	types := storedTypes(t, store, id)
	count := map[string]int{}
	for _, typ := range types {
		count[typ]++
	}
	for typ, want := range map[string]int{"session.started": 1, "llm.request": 1, "llm.retry": 1, "llm.usage": 1,
		"assistant.message": 1, "agent.response": 1, "session.ended": 1} {
		if count[typ] != want {
			t.Errorf("%d %s events in the store, want %d; events: %s", count[typ], typ, want, strings.Join(types, " "))
		}
	}
	retry := slices.Index(types, "llm.retry")
	if retry < 0 || !slices.Contains(types[:retry], "assistant.chunk") || !slices.Contains(types[retry:], "assistant.chunk") {
		t.Errorf("want the lost attempt's chunks, llm.retry, then the new attempt's; events: %s", strings.Join(types, " "))
	}
	totals, err := store.UsageTotals(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	usage := eventData(parseEvents(t, a.stdout), "llm.usage")
	if len(usage) != 1 || float64(totals.PromptTokens) != usage[0]["prompt_tokens"] {
		t.Errorf("usage totals %+v, llm.usage %v: the request must be metered once", totals, usage)
	}
	if !strings.Contains(a.stdout, "twice over") || !strings.Contains(a.stdout, `"status":"completed"`) {
		t.Errorf("the answer or the completed status is missing:\n%s", a.stdout)
	}
}

// shape is what a run's --json stream must have the same on both engines:
// each event's type and the names of its data fields (ids, times, figures
// and the engine aside), a run of assistant.chunk events counted as one
// (their batching follows the clock).
func shape(t *testing.T, evs []event) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		if ev.Type == "assistant.chunk" && len(out) > 0 && out[len(out)-1] == "assistant.chunk" {
			continue
		}
		if ev.Type == "assistant.chunk" {
			out = append(out, ev.Type)
			continue
		}
		var data map[string]any
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			t.Fatalf("event %d (%s): %v", ev.Seq, ev.Type, err)
		}
		delete(data, "engine") // session.started says where a session runs
		keys := slices.Sorted(maps.Keys(data))
		out = append(out, ev.Type+"{"+strings.Join(keys, ",")+"}")
	}
	return out
}

// The same scripted session on the local engine and on Temporal: the same
// exit code and the same --json stream, event type by event type — a
// two-turn session with a tool call, and one a budget stops while the
// response streams (exit 3, its usage recorded).
func TestTemporalJSONStreamMatchesLocal(t *testing.T) {
	addr := temporaltest.Server(t)
	tests := []struct {
		name  string
		agent string
		code  int
		fake  func(*fakedeepseek.Server)
	}{
		{name: "two turns", code: 0, fake: func(f *fakedeepseek.Server) {
			f.Enqueue(fakedeepseek.Scripted(readCall("c1", "notes.txt")), fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The notes say hello."}))
		}},
		{name: "max_tokens mid-stream", code: 3, agent: "  budget {\n    max_tokens = 6000\n  }", fake: func(f *fakedeepseek.Server) {
			f.Repeat(fakedeepseek.Endless(strings.Repeat("and on ", 9)+"\n", time.Millisecond))
		}},
		{name: "max_output mid-stream", code: 3, fake: func(f *fakedeepseek.Server) {
			f.Repeat(fakedeepseek.Endless(strings.Repeat("and on ", 9)+"\n", time.Millisecond))
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			queue := fmt.Sprintf("q-json-%d", i)
			var shapes [2][]string
			for j, engine := range []string{"local", "temporal"} {
				fake := fakedeepseek.New(t)
				tt.fake(fake)
				dir := t.TempDir()
				cfg := deepseekConfig(fake.URL, tt.agent, fmt.Sprintf("engine \"temporal\" {\n  address    = %q\n  task_queue = %q\n}\n", addr, queue))
				if strings.HasPrefix(tt.name, "max_output") {
					cfg = strings.Replace(cfg, "  context_window = 1000000\n", "  context_window = 1000000\n  max_output     = 4096\n", 1)
				}
				writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
				writeFile(t, filepath.Join(dir, "notes.txt"), "hello from the notes\n")
				if engine == "temporal" {
					startWorker(t, dir, addr, queue)
				}
				r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "run", "--json", "--no-input", "--engine", engine, "agent.hcl", "Look at the notes")
				if r.code != tt.code {
					t.Fatalf("%s engine: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", engine, r.code, tt.code, r.stdout, r.stderr)
				}
				shapes[j] = shape(t, parseEvents(t, r.stdout))
			}
			if got, want := strings.Join(shapes[1], "\n"), strings.Join(shapes[0], "\n"); got != want {
				t.Errorf("the temporal engine's --json stream differs from the local one's:\n--- local\n%s\n--- temporal\n%s", want, got)
			}
		})
	}
}

// --resume on the Temporal engine continues a finished session as a new
// workflow from the store's history, with the next message; without one
// there is nothing left to do; a session whose workflow still runs (an
// action waits for its approval) is refused: attach to it.
func TestTemporalResume(t *testing.T) {
	addr := temporaltest.Server(t)
	dir := t.TempDir()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "First answer."}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Second answer."}))
	writeFile(t, filepath.Join(dir, "agent.hcl"), temporalAgent(fake.URL, addr, "q-resume"))
	startWorker(t, dir, addr, "q-resume")
	env := []string{"TEST_DEEPSEEK_KEY=" + apiKey}

	first := harness(t, dir, env, "run", "--json", "--engine", "temporal", "agent.hcl", "Say something")
	if first.code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", first.code, first.stdout, first.stderr)
	}
	id := parseEvents(t, first.stdout)[0].Session

	r := harness(t, dir, env, "run", "--json", "--engine", "temporal", "--resume", id, "agent.hcl", "And now?")
	if r.code != 0 {
		t.Fatalf("run --resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	if len(types) == 0 || types[0] != "session.resumed" || types[1] != "user.message" || types[len(types)-1] != "session.ended" {
		t.Errorf("the resumed run showed %s; want session.resumed, user.message, …, session.ended", strings.Join(types, " "))
	}
	if resumed := eventData(evs, "session.resumed"); len(resumed) != 1 || resumed[0]["engine"] == nil {
		t.Errorf("session.resumed %v, want it to say the session runs on Temporal", resumed)
	}
	if ends := eventData(evs, "session.ended"); len(ends) != 1 || ends[0]["turns"] != float64(2) {
		t.Errorf("session.ended %v, want 2 turns counted over the session", ends)
	}
	var convo []string
	for _, m := range messagesOfLast(t, fake, 2) {
		content, _ := m["content"].(string)
		convo = append(convo, fmt.Sprint(m["role"])+": "+content)
	}
	if got := strings.Join(convo, "\n"); !strings.Contains(got, "assistant: First answer.") || !strings.HasSuffix(got, "user: And now?") {
		t.Errorf("the resumed request does not carry the history and the message:\n%s", got)
	}

	done := harness(t, dir, env, "run", "--engine", "temporal", "--resume", id, "agent.hcl")
	if done.code != 2 || !strings.Contains(done.stderr, "nothing left to do") {
		t.Errorf("--resume without a message: exit %d\n%s", done.code, done.stderr)
	}

	// A session waiting for an approval: its workflow runs.
	fake.Enqueue(fakedeepseek.Scripted(terminalTurn("echo hi")),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Waiting."}))
	ask := strings.Replace(temporalAgent(fake.URL, addr, "q-resume"), `terminal = "allow"`, "terminal   = \"ask\"\n    unattended = \"defer\"", 1)
	writeFile(t, filepath.Join(dir, "ask.hcl"), ask)
	waiting := runDetached(t, dir, "ask.hcl", "Run it")
	store := openStore(t)
	testkit.WaitFor(t, func() bool {
		acts, err := store.Actions(context.Background(), waiting, session.ActionStatusPending)
		return err == nil && len(acts) == 1
	}, "an action to be pending")
	// Its second request (the model's answer to the deferred result) comes
	// after the action is pending: wait for it, so that the count below
	// tells whether the refused resume sent one.
	testkit.WaitFor(t, func() bool { return len(fake.Requests()) == 4 }, "the waiting session's second request")
	busy := harness(t, dir, env, "run", "--engine", "temporal", "--resume", waiting, "ask.hcl", "Hurry up")
	if busy.code != 2 || !strings.Contains(busy.stderr, "still runs on Temporal") || !strings.Contains(busy.stderr, "sessions attach") {
		t.Errorf("--resume of a running session: exit %d\n%s", busy.code, busy.stderr)
	}
	if n := len(fake.Requests()); n != 4 {
		t.Errorf("the fake got %d requests, want 4: the refused resume sent none", n)
	}
}

// --yes on the Temporal engine approves, on the worker, what policy would
// ask a person about, as locally.
func TestTemporalYes(t *testing.T) {
	addr := temporaltest.Server(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "yes.txt")
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(terminalTurn(fmt.Sprintf("echo yes > %s", marker))),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Done."}))
	cfg := strings.Replace(temporalAgent(fake.URL, addr, "q-yes"), `terminal = "allow"`, `terminal = "ask"`, 1)
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	startWorker(t, dir, addr, "q-yes")
	r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "run", "--json", "--yes", "--engine", "temporal", "agent.hcl", "Run it")
	if r.code != 0 {
		t.Fatalf("run --yes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != "yes" {
		t.Errorf("the command did not run: %v %q", err, b)
	}
	decided := eventData(parseEvents(t, r.stdout), "action.decided")
	if len(decided) != 1 || decided[0]["decision"] != "approved" || decided[0]["by"] != "flag" {
		t.Errorf("action.decided %v, want one approved by flag (--yes)", decided)
	}
}

// A person at the terminal that started a session on Temporal is asked
// each approval there; the worker leaves the action pending meanwhile (not
// denied, although unattended is deny) and the answer goes to the workflow
// as a signal: the call runs on the worker and the model hears of it.
func TestTemporalInteractiveApprovalBySignal(t *testing.T) {
	addr := temporaltest.Server(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "asked.txt")
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(terminalTurn(fmt.Sprintf("true && echo yes > %s", marker))),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Waiting for the approval."}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Done: the command ran."}))
	cfg := strings.Replace(temporalAgent(fake.URL, addr, "q-ask"), `terminal = "allow"`, `terminal = "ask"`, 1)
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	startWorker(t, dir, addr, "q-ask")
	s := startScreen(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, 120, "run", "--engine", "temporal", "agent.hcl", "Run the command")
	// The same question as a local run: every simple command in full.
	s.waitFor(`runs 2 simple commands:`)
	s.waitFor(`approve terminal`)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	s.typeLine("y")
	shown := s.waitFor(`\[exit \d+\]`)
	if !strings.Contains(shown, "[exit 0]") {
		t.Errorf("the run did not end completed:\n%s", shown)
	}
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != "yes" {
		t.Errorf("the approved command did not run on the worker: %v %q", err, b)
	}
	if last := lastMessageOfLast(t, fake, 3); !strings.Contains(last, "was approved and ran") {
		t.Errorf("the model was not told of the approval; last message: %q", last)
	}
}

// An action nobody decides within approval_timeout is denied by timeout,
// on the real server: the store and `actions list/show` say so, and the
// model is told.
func TestTemporalApprovalTimeout(t *testing.T) {
	addr := temporaltest.Server(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "never.txt")
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(terminalTurn("echo no > "+marker)),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Waiting for the approval."}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Nobody approved it; I stop here."}))
	cfg := strings.Replace(temporalAgent(fake.URL, addr, "q-timeout"), `terminal = "allow"`,
		"terminal         = \"ask\"\n    unattended       = \"defer\"\n    approval_timeout = \"2s\"", 1)
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	startWorker(t, dir, addr, "q-timeout")
	r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "run", "--json", "--engine", "temporal", "agent.hcl", "Run it")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran although nobody approved it")
	}
	decided := eventData(parseEvents(t, r.stdout), "action.decided")
	if len(decided) != 2 || decided[1]["decision"] != "denied" || decided[1]["by"] != "unattended" || !strings.Contains(fmt.Sprint(decided[1]["rule"]), "approval_timeout 2s") {
		t.Errorf("action.decided %v, want the deferral then a denial by the approval timeout", decided)
	}
	list := harness(t, dir, nil, "actions", "list")
	if list.code != 0 || !strings.Contains(list.stdout, "denied (timeout)") {
		t.Errorf("actions list: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	id := strings.Fields(strings.Split(list.stdout, "\n")[1])[0]
	show := harness(t, dir, nil, "actions", "show", id)
	if show.code != 0 || !strings.Contains(show.stdout, "denied by unattended (approval_timeout 2s: no decision in time)") {
		t.Errorf("actions show: exit %d\n%s%s", show.code, show.stdout, show.stderr)
	}
	if last := lastMessageOfLast(t, fake, 3); !strings.Contains(last, "nobody decided within the approval timeout (2s)") {
		t.Errorf("the model was not told of the timeout; last message: %q", last)
	}
}

// A session whose workflow cannot go on (here its configuration file is
// gone before any worker opened it) ends as an error: `sessions attach`
// returns with it instead of following a session that never ends.
func TestTemporalWorkflowFailureEndsTheSession(t *testing.T) {
	addr := temporaltest.Server(t)
	fake := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{Text: "never asked"}))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), temporalAgent(fake.URL, addr, "q-fail"))
	id := runDetached(t, dir, "agent.hcl", "Say hello")
	if err := os.Remove(filepath.Join(dir, "agent.hcl")); err != nil {
		t.Fatal(err)
	}
	startWorker(t, dir, addr, "q-fail")

	a := harness(t, dir, nil, "sessions", "attach", "--json", id)
	if a.code == 0 || !strings.Contains(a.stdout, `"status":"error"`) || !strings.Contains(a.stdout, "the session's workflow stopped") {
		t.Fatalf("sessions attach exit %d, want the session ended as an error with the cause\nstdout:\n%s\nstderr:\n%s", a.code, a.stdout, a.stderr)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("the fake DeepSeek server got %d requests, want none", n)
	}
}

// messagesOfLast fails unless fake got want requests and returns the
// messages of the last one.
func messagesOfLast(t *testing.T, fake *fakedeepseek.Server, want int) []map[string]any {
	t.Helper()
	reqs := fake.Requests()
	if len(reqs) != want {
		t.Fatalf("the fake got %d requests, want %d", len(reqs), want)
	}
	return messagesOf(t, reqs[want-1])
}

// lastMessageOfLast is the content of the last message of the last of the
// want requests fake got: what the model was told last.
func lastMessageOfLast(t *testing.T, fake *fakedeepseek.Server, want int) string {
	t.Helper()
	msgs := messagesOfLast(t, fake, want)
	if len(msgs) == 0 {
		t.Fatalf("request %d carries no messages", want)
	}
	last, _ := msgs[len(msgs)-1]["content"].(string)
	return last
}
