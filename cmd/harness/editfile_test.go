package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptedModel declares the offline scripted model the tests' agents use
// (the script is turns.hcl next to the config).
const scriptedModel = `provider "offline" {
  plugin = "provider-script"
  script = "turns.hcl"
}

model "scripted" {
  provider       = "offline"
  id             = "script"
  context_window = 128000
}
`

const editConfig = scriptedModel + `
agent "editor" {
  model = "scripted"
  tools = ["read_file", "edit_file", "list_files"]
  permissions {
    write      = ["src/**"]
    unattended = "defer"
  }
}
`

const editScript = `turn {
  text = "Listing, then two edits."
  tool_call "list_files" {
    arguments = { pattern = "*.md" }
  }
  tool_call "edit_file" {
    arguments = { path = "src/a.go", old_string = "return 1", new_string = "return 2" }
  }
  tool_call "edit_file" {
    arguments = { path = "notes.md", old_string = "two\n", new_string = "2\n" }
  }
}
turn {
  text = "done"
}
`

// edit_file through the real binary and plugins: inside permissions.write
// it runs directly; outside, it becomes an action whose summary is the
// host's diff stat, nothing is written until a person approves, and
// approving it later applies exactly that edit.
func TestEditFileThroughTheApprovalPipeline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), editConfig)
	writeFile(t, filepath.Join(dir, "turns.hcl"), editScript)
	writeFile(t, filepath.Join(dir, "src/a.go"), "package a\n\nfunc A() int {\n\treturn 1\n}\n")
	writeFile(t, filepath.Join(dir, "notes.md"), "one\r\ntwo\r\nthree\r\n")
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "edit")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (an action pending)\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	proposed := eventData(evs, "action.proposed")
	if len(proposed) != 1 || proposed[0]["tool"] != "edit_file" || proposed[0]["kind"] != "write_file" || proposed[0]["summary"] != "edit notes.md (+1 −1 lines)" {
		t.Fatalf("proposed %v", proposed)
	}
	var listed bool
	for _, res := range eventData(evs, "tool.result") {
		if res["tool"] == "list_files" {
			p, _ := res["presentation"].(map[string]any)
			listed = fmt.Sprint(p["text"]) == "notes.md\n1 entry matches \"*.md\""
		}
	}
	if !listed {
		t.Errorf("list_files did not list notes.md: %v", eventData(evs, "tool.result"))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src/a.go")); !strings.Contains(string(b), "return 2") {
		t.Errorf("the edit inside permissions.write did not land: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.md")); string(b) != "one\r\ntwo\r\nthree\r\n" {
		t.Fatalf("the edit awaiting approval was applied: %q", b)
	}
	action := fmt.Sprint(proposed[0]["action_id"])
	if a := harness(t, dir, nil, "actions", "approve", action); a.code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", a.code, a.stdout, a.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.md")); string(b) != "one\r\n2\r\nthree\r\n" {
		t.Errorf("after approval the file holds %q, want the edit with its CRLF kept", b)
	}
}
