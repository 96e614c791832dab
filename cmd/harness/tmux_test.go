package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// These tests drive interactive sessions the way a person does: harness
// runs in a tmux pane (a real terminal), keys are sent to it and the screen
// is read back.

// screen is a harness run in a detached tmux session of its own server.
type screen struct {
	t    *testing.T
	sock string
}

// startScreen runs harness args in dir in a width-column tmux pane. When
// harness exits the pane shows "[exit N]" and stays.
func startScreen(t *testing.T, dir string, env []string, width int, args ...string) *screen {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skipf("tmux is not installed, so the interactive end-to-end tests cannot run: %v", err)
	}
	s := &screen{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// The shell outlives Ctrl-C (a handler, not an ignore: harness must not
	// inherit SIG_IGN) to print the exit status.
	script := fmt.Sprintf("trap : INT; cd '%s' && '%s' %s; echo \"[exit $?]\"; exec sleep 600", dir, harnessBin, strings.Join(quoted, " "))
	cmd := exec.Command(tmux, "-S", s.sock, "-f", "/dev/null", "new-session", "-d", "-s", "h",
		"-x", fmt.Sprint(width), "-y", "50", "sh", "-c", script)
	cmd.Env = append(testEnv(t, env), "TERM=xterm-256color")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("tmux cannot start a session here (%v): %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *screen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// capture is the pane as shown: plain text, or with its colours (-e).
func (s *screen) capture(colors bool) string {
	args := []string{"capture-pane", "-p", "-t", "h"}
	if colors {
		args = append(args, "-e")
	}
	lines := strings.Split(s.tmux(args...), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// waitFor waits until the screen shows text (a regular expression) and
// returns the screen.
func (s *screen) waitFor(pattern string) string {
	s.t.Helper()
	re := regexp.MustCompile(pattern)
	var shown string
	// Polling the pane: tmux has no change notification.
	if !testkit.Eventually(60*time.Second, func() bool { shown = s.capture(false); return re.MatchString(shown) }) {
		s.t.Fatalf("the screen never showed %q:\n%s", pattern, shown)
	}
	return shown
}

// typeLine types text and Enter.
func (s *screen) typeLine(text string) {
	s.t.Helper()
	if text != "" {
		s.tmux("send-keys", "-t", "h", "-l", text)
	}
	s.tmux("send-keys", "-t", "h", "Enter")
}

func (s *screen) key(k string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", "h", k)
}

// fakeAgent is an agent on the fake DeepSeek server (%q: its URL) with
// the given agent body.
const fakeAgent = `provider "ds" {
  api_key  = env("TEST_DEEPSEEK_KEY")
  base_url = %q
}

model "flash" {
  provider       = "ds"
  id             = "deepseek-v4-flash"
  context_window = 1000000
  thinking       = false
}

agent "coder" {
  model = "flash"
%s
}
`

const writeTools = `  tools = ["write_file"]
  permissions {
    write = ["out/**"]
  }`

func TestInteractiveApprovalShowsTheDiffAndNoWithAReasonReachesTheModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes.md"), "# Notes\n\nold line\n")
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: "w1", Name: "write_file",
			Arguments: `{"path":"notes.md","content":"# Notes\n\nnew line\n"}`}}}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Understood, I will write into out/ instead."}),
	)
	writeFile(t, filepath.Join(dir, "agent.hcl"), fmt.Sprintf(fakeAgent, fake.URL, writeTools))
	s := startScreen(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, 100, "run", "agent.hcl")
	s.waitFor(`task ›\n$`)
	s.typeLine("Update the notes")
	shown := s.waitFor(`\[a\]lways for writing notes\.md in this\s+session ›\n$`)
	diff := strings.Index(shown, "+new line")
	question := strings.Index(shown, "[y]es")
	if diff < 0 || strings.Index(shown, "-old line") < 0 || question < diff {
		t.Fatalf("the diff should be on the screen before the question:\n%s", shown)
	}
	s.typeLine("maybe")
	s.waitFor(`answer y \(yes\), n \(no\)`)
	s.typeLine("n write into out/ instead")
	s.waitFor(`Understood, I will write`)
	s.waitFor(`message ›\n$`)
	s.key("C-d")
	s.waitFor(`\[exit 0\]`)

	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var toolMsg string
	for _, m := range messagesOf(t, reqs[1]) {
		if m["role"] == "tool" {
			toolMsg, _ = m["content"].(string)
		}
	}
	if !strings.Contains(toolMsg, `who said: "write into out/ instead"`) {
		t.Errorf("the model was not told the person's reason; tool message: %q", toolMsg)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.md")); string(b) != "# Notes\n\nold line\n" {
		t.Errorf("the denied write happened: %q", b)
	}
}

func TestInteractiveCtrlCStopsTheTurnAndContinueResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := fakedeepseek.New(t,
		fakedeepseek.Endless("tick ", 50*time.Millisecond),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Still here."}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Welcome back."}),
	)
	writeFile(t, filepath.Join(dir, "agent.hcl"), fmt.Sprintf(fakeAgent, fake.URL, `  tools = ["read_file"]`))
	env := []string{"TEST_DEEPSEEK_KEY=" + apiKey}
	s := startScreen(t, dir, env, 120, "run", "agent.hcl")
	s.waitFor(`task ›\n$`)
	s.typeLine("")
	s.waitFor(`task ›\ntask ›\n$`) // an empty line asks again
	s.typeLine("Count forever")
	s.waitFor(`tick tick`)
	s.key("C-c")
	shown := s.waitFor(`message ›\n$`)
	if !strings.Contains(shown, "turn interrupted (the answer above is partial)") {
		t.Errorf("the interrupted turn is not marked:\n%s", shown)
	}
	s.typeLine("Are you there?")
	s.waitFor(`Still here\.`)
	s.waitFor(`message ›\n$`)
	s.key("C-c")
	s.waitFor(`press Ctrl-C again`)
	s.key("C-c")
	shown = s.waitFor(`\[exit 130\]`)
	if !strings.Contains(shown, "— interrupted · 2 turns") {
		t.Errorf("the closing line should count the session's turns:\n%s", shown)
	}
	// The interrupted answer reached the model as partial, marked.
	msgs := messagesOf(t, fake.Requests()[1])
	var partial string
	for _, m := range msgs {
		if m["role"] == "assistant" {
			partial, _ = m["content"].(string)
		}
	}
	if !strings.HasPrefix(partial, "tick") || !strings.HasSuffix(partial, "[interrupted by the user]") {
		t.Errorf("the partial answer in the next request: %q", partial)
	}

	// --continue picks the session up without its id.
	c := startScreen(t, dir, env, 120, "run", "--continue", "agent.hcl")
	shown = c.waitFor(`message ›\n$`)
	if !strings.Contains(shown, "↺ resuming session s-") || !strings.Contains(shown, "2 turns so far") {
		t.Errorf("no resume banner:\n%s", shown)
	}
	c.typeLine("Hello again")
	c.waitFor(`Welcome back\.`)
	c.key("C-d")
	c.waitFor(`\[exit 0\]`)
	if got := messagesOf(t, fake.Requests()[2]); len(got) < 5 {
		t.Errorf("the continued session's request carries %d messages, want the earlier conversation too", len(got))
	}
}

// TestInteractiveScreensGolden keeps the approval screen at 60 and 120
// columns, with and without colour (go test -update rewrites the goldens).
func TestInteractiveScreensGolden(t *testing.T) {
	t.Parallel()
	for _, width := range []int{60, 120} {
		for _, color := range []bool{false, true} {
			name := fmt.Sprintf("tmux-approval-%d-%s", width, map[bool]string{false: "plain", true: "color"}[color])
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				writeFile(t, filepath.Join(dir, "notes.md"), "# Notes\n\nThe quick brown fox jumps over the lazy dog, again and again, until the line is long.\n")
				writeFile(t, filepath.Join(dir, "turns.hcl"), `turn {
  text = "I'll update the notes, then check them with a command that is not on the allow list."
  tool_call "write_file" {
    arguments = { path = "notes.md", content = "# Notes\n\nThe quick brown fox jumped over the lazy dogs, again and again, until the line is long.\n" }
  }
}

turn {
  text = "Done."
}
`)
				writeFile(t, filepath.Join(dir, "agent.hcl"), `provider "offline" {
  plugin = "provider-script"
  script = "turns.hcl"
}

model "scripted" {
  provider       = "offline"
  id             = "script"
  context_window = 128000
}

agent "coder" {
  model = "scripted"
  tools = ["write_file"]
  permissions {
    write = ["out/**"]
  }
}
`)
				env := []string{"NO_COLOR=1"}
				if color {
					env = nil
				}
				s := startScreen(t, dir, env, width, "run", "agent.hcl")
				s.waitFor(`task ›\n$`)
				s.typeLine("Fix the notes")
				s.waitFor(`in this\s+session ›\n$`)
				checkScreenGolden(t, name, s.capture(color))
				s.typeLine("y")
				s.waitFor(`message ›\n$`)
				s.key("C-d")
				s.waitFor(`\[exit 0\]`)
			})
		}
	}
}

func checkScreenGolden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", "screens", name+".golden"), []byte(got))
}

// TestInteractiveAlwaysStatesItsScopeAndIsListed: "a" approves the stated
// scope for the rest of the session (a later command in it is not asked
// about), and `actions rules` lists it.
func TestInteractiveAlwaysStatesItsScopeAndIsListed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "turns.hcl"), `turn {
  tool_call "terminal" {
    arguments = { command = "echo one" }
  }
}

turn {
  tool_call "terminal" {
    arguments = { command = "echo two > /dev/null" }
  }
}

turn {
  text = "Both ran."
}
`)
	writeFile(t, filepath.Join(dir, "agent.hcl"), strings.Replace(sleeperConfig, `    terminal = "allow"`, `    terminal = "ask"`, 1))
	s := startScreen(t, dir, nil, 120, "run", "agent.hcl")
	s.waitFor(`task ›\n$`)
	s.typeLine("Echo twice")
	s.waitFor("\\[a\\]lways for `echo \\*` in this session ›\n$")
	s.typeLine("a")
	shown := s.waitFor(`Both ran\.`)
	if n := strings.Count(shown, "? approve"); n != 1 {
		t.Errorf("asked %d times; the second echo is in the scope of the first answer:\n%s", n, shown)
	}
	if !strings.Contains(shown, "approved by user: always for `echo *` in this session") {
		t.Errorf("the second command's approval should name the scope:\n%s", shown)
	}
	s.waitFor(`message ›\n$`)
	s.key("C-d")
	s.waitFor(`\[exit 0\]`)
	r := harness(t, dir, nil, "actions", "rules")
	if !strings.Contains(r.stdout, "always for `echo *`") {
		t.Errorf("actions rules: %s%s", r.stdout, r.stderr)
	}
}
