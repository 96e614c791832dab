package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodePlugin returns the folder of the Node.js example plugin, skipping the
// test (with the reason) when Node.js or its npm dependencies are missing;
// scripts/test.sh installs them and sets HARNESS_TEST_NODE=required, which
// turns the skip into a failure.
func nodePlugin(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "examples", "plugins", "node-wordcount")
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@grpc", "grpc-js")); err != nil {
		missing = "its npm dependencies are not installed (npm ci --prefix examples/plugins/node-wordcount)"
	}
	if missing != "" {
		if os.Getenv("HARNESS_TEST_NODE") == "required" {
			t.Fatalf("the Node.js plugin test cannot run: %s", missing)
		}
		t.Skipf("skipping the Node.js plugin test: %s; scripts/test.sh installs what it needs", missing)
	}
	return dir
}

// TestNodePluginEndToEnd: a tool plugin written in Node.js from the
// protocol alone (handshake, AutoMTLS, health, controller) is declared,
// locked, started and called through every phase of a run.
func TestNodePluginEndToEnd(t *testing.T) {
	t.Parallel()
	home := nodePlugin(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "turns.hcl"), `
turn {
  text = "Counting."
  tool_call "word_count" {
    arguments = { text = "one two\nthree" }
  }
}

turn {
  text = "Three words."
}
`)
	writeFile(t, filepath.Join(dir, "agent.hcl"), fmt.Sprintf(`
plugin "wordcount" {
  path = %q
  env  = { WORDCOUNT_HOME = %q }
}

provider "offline" {
  plugin = "provider-script"
  script = "turns.hcl"
}

model "scripted" {
  provider       = "offline"
  id             = "script"
  context_window = 128000
}

agent "try" {
  model = "scripted"
  tools = ["word_count"]
}
`, filepath.Join(home, "wordcount.js"), home))
	if r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Count"); r.code == 0 || !strings.Contains(r.stderr, "plugins lock") {
		t.Fatalf("an unlocked plugin ran (exit %d), or the refusal does not say to lock it:\n%s", r.code, r.stderr)
	}
	if r := harness(t, dir, nil, "plugins", "lock", "agent.hcl"); r.code != 0 {
		t.Fatalf("plugins lock: exit %d\n%s", r.code, r.stderr)
	}
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Count")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	results := eventData(evs, "tool.result")
	if len(results) != 1 || results[0]["ok"] != true || !strings.Contains(fmt.Sprint(results[0]["content"]), "3 words") {
		t.Fatalf("tool results %v, want one saying 3 words", results)
	}
	var progress []string
	for _, p := range eventData(evs, "tool.progress") {
		progress = append(progress, fmt.Sprint(p["text"]))
	}
	if got := strings.Join(progress, ""); got != "line 1: 2 words\nline 2: 1 words\n" {
		t.Errorf("progress %q, want one line per input line", got)
	}
	assertNoProcsLeft(t, dir, 0)
}
