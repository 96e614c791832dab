package main

import (
	"context"
	"fmt"

	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	script "github.com/harness-agent/harness/plugins/provider-script"
	"github.com/harness-agent/harness/plugins/readfile"
	"github.com/harness-agent/harness/plugins/search"
	"github.com/harness-agent/harness/plugins/terminal"
	"github.com/harness-agent/harness/plugins/writefile"

	"github.com/harness-agent/harness/core/catalog"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/sdk"
)

// builtin is a plugin compiled into this binary; serve runs it as the
// plugin process (`harness plugin serve NAME`).
type builtin struct {
	catalog.Builtin
	// tools is a tool plugin's own description of its tools: the catalog's
	// list of what the built-in offers comes from it, not from a list kept
	// by hand.
	tools func() *sdk.ToolSet
	// provider is a provider plugin, asked in this process for the schema
	// of its settings (what its Describe reports).
	provider func() sdk.Provider
	serve    func()
}

// builtins is the composition root's list of built-in plugins. The core
// never imports plugins; it learns of these through the catalog.
var builtins = []builtin{
	toolBuiltin("readfile", readfile.New),
	toolBuiltin("writefile", writefile.New),
	toolBuiltin("terminal", terminal.New),
	toolBuiltin("search", search.New),
	providerBuiltin("provider-deepseek", func() sdk.Provider { return deepseek.New() }),
	providerBuiltin("provider-anthropic", func() sdk.Provider { return anthropic.New() }),
	providerBuiltin("provider-script", func() sdk.Provider { return script.New() }),
}

// toolBuiltin is a built-in tool plugin. Every one runs in the shared
// built-in process: none holds a secret.
func toolBuiltin(name string, newPlugin func() *sdk.ToolSet) builtin {
	return builtin{
		Builtin: catalog.Builtin{Name: name, Kind: sdk.PluginTool},
		tools:   newPlugin,
		serve:   func() { sdk.ServeTool(newPlugin()) },
	}
}

// providerBuiltin is a built-in provider plugin. One whose settings
// include a secret (an API key) runs in a process of its own per provider
// block, so that the key is in no other process; one without shares the
// built-in process.
func providerBuiltin(name string, newPlugin func() sdk.Provider) builtin {
	return builtin{
		Builtin:  catalog.Builtin{Name: name, Kind: sdk.PluginProvider},
		provider: newPlugin,
		serve:    func() { sdk.ServeProvider(newPlugin()) },
	}
}

// shared reports whether b runs in the shared built-in process: a tool
// plugin always, a provider when its settings hold no secret. Asked when
// needed, not at package init, which every process pays for.
func (b builtin) shared() bool {
	return b.tools != nil || (b.provider != nil && !holdsSecrets(b.provider()))
}

// holdsSecrets reports whether a provider's settings schema declares a
// secret ("writeOnly": true) or cannot say (no schema).
func holdsSecrets(p sdk.Provider) bool {
	d, ok := p.(sdk.ProviderDescriber)
	if !ok {
		return true
	}
	schema, err := d.SettingsSchema(context.Background())
	return err != nil || config.DeclaresSecrets(schema)
}

// serveShared serves, in one process, every built-in a host asks for by
// name (`harness plugin serve --shared`).
func serveShared() {
	find := func(name string) *builtin {
		for i := range builtins {
			if builtins[i].Name == name && builtins[i].shared() {
				return &builtins[i]
			}
		}
		return nil
	}
	sdk.ServeShared(sdk.SharedSet{
		Tool: func(name string) sdk.ToolPlugin {
			if b := find(name); b != nil && b.tools != nil {
				return b.tools()
			}
			return nil // not a typed nil: the SDK compares the interface
		},
		Provider: func(name string) sdk.Provider {
			if b := find(name); b != nil && b.provider != nil {
				return b.provider()
			}
			return nil
		},
	})
}

// builtinProviderSchema returns the settings schema of a built-in provider
// plugin, for config.LoadWith: a provider block on a built-in is decoded
// against what the plugin reports, without starting its process.
func builtinProviderSchema(name string) ([]byte, bool) {
	for _, b := range builtins {
		if b.Name != name || b.provider == nil {
			continue
		}
		d, ok := b.provider().(sdk.ProviderDescriber)
		if !ok {
			return nil, true // no schema: any settings
		}
		s, err := d.SettingsSchema(context.Background())
		if err != nil {
			// A built-in's schema is a constant; a failure is a bug of the build.
			panic(fmt.Sprintf("built-in provider %s: settings schema: %v", name, err))
		}
		return s, true
	}
	return nil, false
}

// builtinCatalog is what the catalog knows of the built-ins: each tool
// plugin's tools as its ToolSet declares them (what its Describe reports).
func builtinCatalog() []catalog.Builtin {
	out := make([]catalog.Builtin, len(builtins))
	for i, b := range builtins {
		out[i] = b.Builtin
		out[i].Shared = b.shared()
		if b.tools == nil {
			continue
		}
		for _, t := range b.tools().Tools {
			out[i].Tools = append(out[i].Tools, t.Spec.Name)
		}
	}
	return out
}
