package mcp

import (
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func TestToolName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	tests := []struct {
		server, tool, want, err string
	}{
		{"everything", "echo", "everything__echo", ""},
		{"everything", "get-sum", "everything__get-sum", ""},
		{"fs", "write_file", "fs__write_file", ""},
		{"gh", "repos.list", "gh__repos_list", ""},
		{"gh", "search issues/prs", "gh__search_issues_prs", ""},
		{"i18n", "überprüfen", "i18n___berpr_fen", ""},
		{"s", long, "s__" + strings.Repeat("x", 52) + "_", ""}, // then 8 hex digits of a hash
		{"everything", "", "", "empty name"},
		{strings.Repeat("n", 56), long, "", "shorter name"},
	}
	for _, tt := range tests {
		got, err := ToolName(tt.server, tt.tool)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ToolName(%q, %q): error %v, want one saying %q", tt.server, tt.tool, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ToolName(%q, %q): %v", tt.server, tt.tool, err)
			continue
		}
		if !sdk.ValidToolName(got) {
			t.Errorf("ToolName(%q, %q) = %q: providers refuse it", tt.server, tt.tool, got)
		}
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
}

func TestToolNameShortensWithAStableHash(t *testing.T) {
	t.Parallel()
	a1, _ := ToolName("srv", strings.Repeat("a", 70)+"1")
	a2, _ := ToolName("srv", strings.Repeat("a", 70)+"2")
	again, _ := ToolName("srv", strings.Repeat("a", 70)+"1")
	if len(a1) != 64 || len(a2) != 64 {
		t.Fatalf("lengths %d and %d, want 64", len(a1), len(a2))
	}
	if a1 == a2 {
		t.Errorf("two long names shortened to one: %q", a1)
	}
	if a1 != again {
		t.Errorf("shortening is not stable: %q then %q", a1, again)
	}
}

func FuzzToolName(f *testing.F) {
	for _, s := range []string{"echo", "a.b/c", strings.Repeat("é", 70), "\x00"} {
		f.Add("srv", s)
	}
	f.Fuzz(func(t *testing.T, server, tool string) {
		if !sdk.ValidToolName(server) || strings.Contains(server, "__") || len(server) > 60 {
			return
		}
		name, err := ToolName(server, tool)
		if err != nil {
			return
		}
		if !sdk.ValidToolName(name) || !strings.HasPrefix(name, server+"__") {
			t.Fatalf("ToolName(%q, %q) = %q", server, tool, name)
		}
	})
}
