package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunReportsConfigurationProblemsLikeValidate: what validate finds, run
// reports the same way (a diagnostic with file:line:col on stderr, once,
// exit 2) and creates no session.
func TestRunReportsConfigurationProblemsLikeValidate(t *testing.T) {
	t.Parallel()
	keyed := strings.Replace(sleeperConfig, "  plugin = \"provider-script\"\n  script = \"turns.hcl\"\n",
		"  plugin = \"provider-deepseek\"\n  api_key = env(\"HARNESS_TEST_MISSING_KEY\")\n", 1)
	for _, tt := range []struct {
		name, config, want string
	}{
		{"unknown tool", strings.Replace(sleeperConfig, `tools = ["terminal"]`, `tools = ["termnal"]`, 1), `Error: Unknown tool`},
		{"missing API key", keyed, "HARNESS_TEST_MISSING_KEY is not set"},
		// A built-in provider's settings are its plugin's schema, checked at load.
		{"unknown provider setting", strings.Replace(sleeperConfig, "  script = \"turns.hcl\"\n",
			"  script = \"turns.hcl\"\n  colour = \"blue\"\n", 1), "Error: Unsupported argument"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "turns.hcl"), "turn {\n  text = \"hi\"\n}\n")
			writeFile(t, filepath.Join(dir, "agent.hcl"), tt.config)
			env := []string{"HARNESS_STATE_DIR=" + filepath.Join(dir, "state"), "HARNESS_TEST_MISSING_KEY="}
			v := harness(t, dir, env, "validate", "agent.hcl")
			r := harness(t, dir, env, "run", "--no-input", "agent.hcl", "hello")
			if v.code != 2 || r.code != 2 {
				t.Fatalf("validate exit %d, run exit %d; want 2 and 2\nvalidate: %s\nrun: %s", v.code, r.code, v.stderr, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) || !strings.Contains(r.stderr, "on agent.hcl:") {
				t.Errorf("run's stderr should carry the diagnostic %q at agent.hcl:LINE:COL:\n%s", tt.want, r.stderr)
			}
			if strings.Count(r.stderr, tt.want) != 1 || strings.Contains(r.stdout, tt.want) || strings.Contains(r.stderr, "internal") {
				t.Errorf("the problem should be printed once, on stderr, as a configuration error:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
			if tt.name == "unknown tool" && !strings.Contains(strings.Join(strings.Fields(r.stderr), " "), `did you mean "terminal"?`) {
				t.Errorf("no suggestion for the misspelt tool:\n%s", r.stderr)
			}
			if l := harness(t, dir, env, "sessions", "list", "--all"); !strings.Contains(l.stdout, "no sessions") {
				t.Errorf("a run that never started left a session:\n%s", l.stdout)
			}
		})
	}
}

func TestRunWithAWrongAgentListsTheAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "turns.hcl"), "turn {\n  text = \"hi\"\n}\n")
	writeFile(t, filepath.Join(dir, "agent.hcl"), sleeperConfig)
	r := harness(t, dir, nil, "run", "--agent", "nobody", "--no-input", "agent.hcl", "hello")
	if r.code != 2 || !strings.Contains(r.stderr, `no agent "nobody"; its agents: sleeper`) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// TestParallelCallsAreLoggedInTheModelsOrder: calls that run concurrently
// are recorded as tool.call events in the order the model made them, every
// time.
func TestParallelCallsAreLoggedInTheModelsOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "alpha\n")
	var calls strings.Builder
	want := []string{}
	for i := range 6 {
		id := []string{"read_file", "search_workspace"}[i%2]
		args := `{ path = "a.txt" }`
		if id == "search_workspace" {
			args = `{ query = "alpha" }`
		}
		calls.WriteString("  tool_call \"" + id + "\" {\n    arguments = " + args + "\n  }\n")
		want = append(want, id)
	}
	writeFile(t, filepath.Join(dir, "turns.hcl"), "turn {\n"+calls.String()+"}\n\nturn {\n  text = \"done\"\n}\n")
	writeFile(t, filepath.Join(dir, "agent.hcl"), strings.Replace(sleeperConfig, `tools = ["terminal"]`, `tools = ["read_file", "search_workspace"]`, 1))
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "read")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var got []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, `"type":"tool.call"`) {
			_, rest, _ := strings.Cut(line, `"tool":"`)
			name, _, _ := strings.Cut(rest, `"`)
			got = append(got, name)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tool.call events in the order %v, want the model's %v", got, want)
	}
}

// TestSessionsShowTellsTheWholeStory: the task, later messages, the
// approvals and who decided them, the resume and the end.
func TestSessionsShowTellsTheWholeStory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "turns.hcl"), "turn {\n  tool_call \"terminal\" {\n    arguments = { command = \"echo hi\" }\n  }\n}\n\nturn {\n  text = \"said hi\"\n}\n\nturn {\n  text = \"and again\"\n}\n")
	writeFile(t, filepath.Join(dir, "agent.hcl"), sleeperConfig)
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Say hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	id := evs[0].Session
	if r := harness(t, dir, nil, "run", "--no-input", "--resume", id, "agent.hcl", "Once more"); r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	show := harness(t, dir, nil, "sessions", "show", id)
	for _, want := range []string{"task ›", "Say hi", "approved by policy", "$ echo hi", "said hi", "↺ resumed after 2 turns", "message ›", "Once more", "and again", "■ ended: completed"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, show.stdout)
		}
	}
	if strings.Index(show.stdout, "Say hi") > strings.Index(show.stdout, "Once more") {
		t.Errorf("the story is out of order:\n%s", show.stdout)
	}
}
