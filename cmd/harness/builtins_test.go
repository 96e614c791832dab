package main

import (
	"context"
	"slices"
	"testing"

	"github.com/harness-agent/harness/core/config"
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

// The core treats some built-in tools apart by name (the terminal's shell
// policy and deadline, write_file's diffs and permissions.write, the
// system prompt's hints): a built-in that renamed one would quietly lose
// those rules, so each name must be a built-in's tool, and no tool of a
// built-in may take the core's own tool's name.
func TestCoreToolNamesAreTheBuiltins(t *testing.T) {
	t.Parallel()
	var offered []string
	for _, b := range builtinCatalog() {
		offered = append(offered, b.Tools...)
	}
	for _, name := range []string{config.TerminalTool, config.WriteFileTool, config.EditFileTool} {
		if !slices.Contains(offered, name) {
			t.Errorf("the core treats %q apart, but no built-in offers it (they offer %v)", name, offered)
		}
	}
	if slices.Contains(offered, config.EmitArtifactTool) {
		t.Errorf("a built-in offers %q, the core's own tool", config.EmitArtifactTool)
	}
	for _, name := range offered {
		if !sdk.ValidToolName(name) {
			t.Errorf("built-in tool %q: not a name providers accept (%s)", name, sdk.ToolNameRule)
		}
	}
}

// A built-in that holds a key must have a process of its own; the others
// share one (docs/security.md "Which plugins share a process").
func TestOnlyBuiltinsWithoutSecretsShareAProcess(t *testing.T) {
	t.Parallel()
	want := map[string]bool{
		"readfile": true, "writefile": true, "terminal": true, "search": true,
		"provider-script": true, "provider-deepseek": false, "provider-anthropic": false,
	}
	for _, b := range builtinCatalog() {
		shared, ok := want[b.Name]
		if !ok {
			t.Errorf("built-in %q has no entry in this test: say whether it may share a process", b.Name)
			continue
		}
		if b.Shared != shared {
			t.Errorf("built-in %q: Shared = %v, want %v", b.Name, b.Shared, shared)
		}
	}
}
