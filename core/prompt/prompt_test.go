package prompt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/internal/testkit"
)

func TestAssembleSortsAndDropsEmpty(t *testing.T) {
	t.Parallel()
	got := Assemble([]Segment{
		{Name: "b", Order: 2, Text: "two"},
		{Name: "empty", Order: 1, Text: "  \n"},
		{Name: "a", Order: 2, Text: "also two"},
		{Name: "z", Order: 0, Text: "zero"},
	})
	if want := "zero\n\nalso two\n\ntwo\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func agent() *config.Agent {
	return &config.Agent{
		Name:    "coder",
		Persona: "A careful Go reviewer.",
		System:  "Prefer small diffs.",
		Permissions: config.Permissions{
			Write:         []string{"src/**"},
			Terminal:      "ask",
			AllowCommands: []string{"go test ./..."},
			DenyCommands:  []string{"rm *"},
			Unattended:    "defer",
		},
	}
}

func TestSystemPromptGolden(t *testing.T) {
	t.Parallel()
	got := System(agent(), []Tool{
		{Name: "read_file", Description: "Read a file. Lines are numbered."},
		{Name: "terminal", Description: "Run a command in the workspace.\nMore detail."},
		{Name: "write_file", Description: "Write a file atomically."},
		{Name: "edit_file", Description: "Edit a file by replacing exact text. Returns the diff."},
	}, 2)
	testkit.Golden(t, filepath.Join("testdata", "system.golden.md"), []byte(got))
}

func TestSystemPromptIsStableAndSessionFree(t *testing.T) {
	t.Parallel()
	tools := []Tool{{Name: "read_file", Description: "Read."}}
	a, b := System(agent(), tools, 0), System(agent(), tools, 0)
	if a != b {
		t.Fatal("the same agent gave two system prompts")
	}
	if strings.Contains(a, "other tools exist") {
		t.Error("hidden-tools marker shown with no hidden tools")
	}
	task := TaskMessage("fix it", "2026-11-29", "/ws")
	if strings.Contains(a, "2026") || !strings.Contains(task, `date="2026-11-29"`) {
		t.Error("session facts must travel with the task, not the system prompt")
	}
}
