package config

import (
	"strings"
	"testing"
)

type namedCatalog []string

func (c namedCatalog) HasTool(name string) bool {
	for _, n := range c {
		if n == name {
			return true
		}
	}
	return false
}
func (namedCatalog) ConfigSchema(string) []byte { return nil }
func (c namedCatalog) ToolNames() []string      { return c }

func TestUnknownToolSuggestsTheNearest(t *testing.T) {
	t.Parallel()
	cat := namedCatalog{"read_file", "write_file", "search_workspace", "terminal"}
	for _, tt := range []struct{ tool, want string }{
		{"read_fil", `did you mean "read_file"?`},
		{"serach_workspace", `did you mean "search_workspace"?`},
		{"termnal", `did you mean "terminal"?`},
		{"weather_forecast", ""},
		{"x", ""},
	} {
		got := unknownTool(&Config{}, cat, tt.tool)
		if tt.want == "" && strings.Contains(got, "did you mean") || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("unknownTool(%q) = %q, want it to contain %q", tt.tool, got, tt.want)
		}
	}
}
