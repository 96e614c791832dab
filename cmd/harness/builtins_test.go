package main

import (
	"context"
	"slices"
	"testing"

	"github.com/harness-agent/harness/plugins/readfile"
	"github.com/harness-agent/harness/plugins/search"
	"github.com/harness-agent/harness/plugins/terminal"
	"github.com/harness-agent/harness/plugins/writefile"
	"github.com/harness-agent/harness/sdk"
)

// The catalog starts a built-in only for the tools its list names: the
// list derived from each ToolSet must be what the plugin's Describe reports.
func TestBuiltinToolListsMatchThePlugins(t *testing.T) {
	t.Parallel()
	plugins := map[string]sdk.ToolPlugin{
		"readfile": readfile.New(), "writefile": writefile.New(), "terminal": terminal.New(), "search": search.New(),
	}
	for _, b := range builtinCatalog() {
		if b.Kind != sdk.PluginTool {
			continue
		}
		p, ok := plugins[b.Name]
		if !ok {
			t.Errorf("built-in %q has no entry in this test", b.Name)
			continue
		}
		info, err := p.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range info.Tools {
			names = append(names, tool.Name)
		}
		if len(names) == 0 || !slices.Equal(names, b.Tools) {
			t.Errorf("built-in %q: catalog lists %v, plugin reports %v", b.Name, b.Tools, names)
		}
	}
}
