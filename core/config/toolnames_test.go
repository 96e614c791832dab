package config

import (
	"strings"
	"testing"
)

func TestToolEntries(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("s", 61) // the longest server name that leaves room for "__" and a tool
	tests := []struct {
		entry  string
		valid  bool   // may appear in an agent's tools
		server string // MCPServerOf; "" when it names none
		all    string // MCPWildcardServer; "" when it is no wildcard
	}{
		{"read_file", true, "", ""},
		{"everything__echo", true, "everything", ""},
		{"everything__*", true, "everything", "everything"},
		{"a__b__c", true, "a", ""},
		{long + "__*", true, long, long},
		{long + "s__*", false, long + "s", long + "s"},
		{"__*", false, "", ""},
		{"a__b__*", false, "a", "a__b"},
		{"*", false, "", ""},
		{"read file", false, "", ""},
		{"ev__*x", false, "ev", ""},
		{"", false, "", ""},
	}
	for _, tt := range tests {
		if got := validToolEntry(tt.entry); got != tt.valid {
			t.Errorf("validToolEntry(%q) = %v, want %v", tt.entry, got, tt.valid)
		}
		if got, ok := MCPServerOf(tt.entry); got != tt.server || ok != (tt.server != "") {
			t.Errorf("MCPServerOf(%q) = %q, %v; want %q", tt.entry, got, ok, tt.server)
		}
		if got, ok := MCPWildcardServer(tt.entry); ok && got != tt.all || !ok && tt.all != "" {
			t.Errorf("MCPWildcardServer(%q) = %q, %v; want %q", tt.entry, got, ok, tt.all)
		}
	}
}

func TestSelects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry, name string
		want        bool
	}{
		{"read_file", "read_file", true},
		{"read_file", "read_files", false},
		{"ev__*", "ev__echo", true},
		{"ev__*", "ev__", true},
		{"ev__*", "eve__echo", false},
		{"ev__*", "ev_echo", false},
		{"ev__*", "other__ev__echo", false},
		{"ev__echo", "ev__add", false},
		{MCPWildcard("ev"), "ev__add", true},
	}
	for _, tt := range tests {
		if got := Selects(tt.entry, tt.name); got != tt.want {
			t.Errorf("Selects(%q, %q) = %v, want %v", tt.entry, tt.name, got, tt.want)
		}
	}
}

func TestMCPServerNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		{"everything", true},
		{"my-server_2", true},
		{strings.Repeat("s", 61), true},
		{strings.Repeat("s", 62), false}, // "NAME__" leaves no room for a tool
		{"a__b", false},
		{"a_b", true},
		{"", false},
		{"dot.ted", false},
	}
	for _, tt := range tests {
		if got := validMCPServerName(tt.name); got != tt.want {
			t.Errorf("validMCPServerName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFromPlugin(t *testing.T) {
	t.Parallel()
	cfg := &Config{MCPServers: []*MCPServer{{Name: "ev"}}}
	tests := []struct {
		tool string
		want bool
	}{
		{"read_file", true},
		{"my_plugin_tool", true},
		{EmitArtifactTool, false},
		{"ev__echo", false},
		{"ev__*", false},
		{"other__echo", true}, // no mcp "other": a plugin's tool that holds "__"
		{"eve__echo", true},
	}
	for _, tt := range tests {
		if got := cfg.FromPlugin(tt.tool); got != tt.want {
			t.Errorf("FromPlugin(%q) = %v, want %v", tt.tool, got, tt.want)
		}
	}
}
