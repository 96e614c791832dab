package sdk_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func TestHookPhases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		phase      string
		hook, tool bool
	}{
		{sdk.PhasePreExecute, true, true},
		{sdk.PhaseApprove, true, true},
		{sdk.PhasePostExecute, true, true},
		{sdk.PhaseResult, true, true},
		{sdk.PhaseLLMStream, true, false},
		// In-process phases of core/tools: no hook plugin subscribes to them.
		{"tools/find", false, true},
		{"tools/prepare", false, true},
		{"tools/execute", false, true},
		{"tools/normalize", false, true},
		{"", false, false},
		{"tools/Approve", false, true},
		{"llm/stream ", false, false},
		{"llm/request", false, false},
	}
	for _, tt := range tests {
		if got := sdk.IsHookPhase(tt.phase); got != tt.hook {
			t.Errorf("IsHookPhase(%q) = %v, want %v", tt.phase, got, tt.hook)
		}
		if got := sdk.IsToolPhase(tt.phase); got != tt.tool {
			t.Errorf("IsToolPhase(%q) = %v, want %v", tt.phase, got, tt.tool)
		}
	}
	all := sdk.HookPhases()
	all[0] = "changed"
	if sdk.HookPhases()[0] != sdk.PhasePreExecute {
		t.Error("HookPhases returns a slice its callers can change for everyone")
	}
}

// TestDocsListTheHookPhases: the hook block's reference in docs/config.md
// and the protocol's hook.proto (what authors in other languages read)
// name every phase a hook may subscribe to, and no other.
func TestDocsListTheHookPhases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, line, quote string
	}{
		{"../docs/config.md", "(?m)^\\| `phases` \\|.*$", "`"},
		{"proto/hookv1/hook.proto", "(?m)^\\s*// phases: .*$", `"`},
	}
	for _, tt := range tests {
		doc, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		line := regexp.MustCompile(tt.line).Find(doc)
		if line == nil {
			t.Errorf("%s has no line listing the hook phases (%s)", tt.file, tt.line)
			continue
		}
		var listed []string
		for _, m := range regexp.MustCompile(tt.quote+"([a-z]+/[a-z-]+)"+tt.quote).FindAllSubmatch(line, -1) {
			listed = append(listed, string(m[1]))
		}
		if !slices.Equal(listed, sdk.HookPhases()) {
			t.Errorf("%s lists the phases %s; sdk.HookPhases is %s",
				tt.file, strings.Join(listed, ", "), strings.Join(sdk.HookPhases(), ", "))
		}
	}
}
