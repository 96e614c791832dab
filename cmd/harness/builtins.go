package main

import (
	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	script "github.com/harness-agent/harness/plugins/provider-script"
	"github.com/harness-agent/harness/plugins/readfile"
	"github.com/harness-agent/harness/plugins/search"
	"github.com/harness-agent/harness/plugins/terminal"
	"github.com/harness-agent/harness/plugins/writefile"

	"github.com/harness-agent/harness/core/catalog"
	"github.com/harness-agent/harness/sdk"
)

// builtin is a plugin compiled into this binary; serve runs it as the
// plugin process (`harness plugin serve NAME`).
type builtin struct {
	catalog.Builtin
	serve func()
}

// builtins is the composition root's list of built-in plugins. The core
// never imports plugins; it learns of these through the catalog.
var builtins = []builtin{
	{catalog.Builtin{Name: "readfile", Kind: sdk.PluginTool, Tools: []string{"read_file"}}, func() { sdk.ServeTool(readfile.New()) }},
	{catalog.Builtin{Name: "writefile", Kind: sdk.PluginTool, Tools: []string{"write_file", "edit_file"}}, func() { sdk.ServeTool(writefile.New()) }},
	{catalog.Builtin{Name: "terminal", Kind: sdk.PluginTool, Tools: []string{"terminal"}}, func() { sdk.ServeTool(terminal.New()) }},
	{catalog.Builtin{Name: "search", Kind: sdk.PluginTool, Tools: []string{"search_workspace", "list_files"}}, func() { sdk.ServeTool(search.New()) }},
	{catalog.Builtin{Name: "provider-deepseek", Kind: sdk.PluginProvider}, func() { sdk.ServeProvider(deepseek.New()) }},
	{catalog.Builtin{Name: "provider-anthropic", Kind: sdk.PluginProvider}, func() { sdk.ServeProvider(anthropic.New()) }},
	{catalog.Builtin{Name: "provider-script", Kind: sdk.PluginProvider}, func() { sdk.ServeProvider(script.New()) }},
}

func builtinCatalog() []catalog.Builtin {
	out := make([]catalog.Builtin, len(builtins))
	for i, b := range builtins {
		out[i] = b.Builtin
	}
	return out
}
