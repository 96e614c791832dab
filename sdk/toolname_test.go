package sdk_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func TestValidToolName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		{"read_file", true},
		{"get-sum", true},
		{"Tool9", true},
		{"everything__echo", true},
		{"_", true},
		{strings.Repeat("a", sdk.MaxToolNameLen), true},
		{strings.Repeat("a", sdk.MaxToolNameLen+1), false},
		{"", false},
		{"read file", false},
		{"repos.list", false},
		{"a/b", false},
		{"über", false},
		{"é", false},
		{"tab\t", false},
		{"nul\x00", false},
		{"star*", false},
		{"everything__*", false}, // a whitelist entry, not a tool name
	}
	for _, tt := range tests {
		if got := sdk.ValidToolName(tt.name); got != tt.want {
			t.Errorf("ValidToolName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestToolNameRuleSaysWhatIsChecked: the words shown to authors name the
// limit that ValidToolName applies and every character class it accepts.
func TestToolNameRuleSaysWhatIsChecked(t *testing.T) {
	t.Parallel()
	if !strings.Contains(sdk.ToolNameRule, strconv.Itoa(sdk.MaxToolNameLen)) {
		t.Errorf("ToolNameRule %q does not name the limit %d", sdk.ToolNameRule, sdk.MaxToolNameLen)
	}
	for r := rune(0); r < 0x250; r++ {
		want := r == '_' || r == '-' || r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		if got := sdk.ToolNameRune(r); got != want {
			t.Errorf("ToolNameRune(%q) = %v, want %v", r, got, want)
		}
	}
	for _, word := range []string{"letters", "digits", "'_'", "'-'"} {
		if !strings.Contains(sdk.ToolNameRule, word) {
			t.Errorf("ToolNameRule %q does not say %s", sdk.ToolNameRule, word)
		}
	}
}
