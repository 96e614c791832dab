package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Catalog is what Check needs to know from the running plugins.
// core/catalog implements it after asking the built-in and declared plugins
// (through core/pluginhost) what they offer.
type Catalog interface {
	// HasTool reports whether a built-in or declared plugin offers the tool name.
	HasTool(name string) bool
	// ConfigSchema returns the JSON Schema a declared plugin reports for its config
	// block, nil if it reports none.
	ConfigSchema(plugin string) []byte
}

// ProviderCatalog is an optional extension of Catalog: when the catalog implements it,
// Check also verifies that every provider's plugin exists.
type ProviderCatalog interface {
	// HasProviderPlugin reports whether name is a provider plugin the catalog knows: a
	// built-in one, or a plugin block that a provider block names.
	HasProviderPlugin(name string) bool
}

// ProviderSettingsCatalog is an optional extension of Catalog: when the catalog implements
// it, Check decodes the settings of every provider block on a third-party plugin against the
// schema the plugin reports.
type ProviderSettingsCatalog interface {
	// ProviderSettingsSchema returns the settings schema of a provider plugin block; ok is
	// false when the plugin was not described (its failure is reported on its own).
	ProviderSettingsSchema(plugin string) (schema []byte, ok bool)
}

// Check runs the checks that need the plugins' answers: every tool of every agent's
// whitelist is known (emit_artifact always is; "NAME__tool" and "NAME__*" are when mcp
// "NAME" is declared, its server is never started here), every plugin config block decodes
// against its plugin's schema and, with a ProviderCatalog, every provider's plugin exists.
// cfg must come from a Load without errors.
func Check(cfg *Config, cat Catalog) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range cfg.Agents {
		for i, tool := range a.Tools {
			if detail := unknownTool(cfg, cat, tool); detail != "" {
				rng := a.ToolsRange
				if i < len(a.ToolRanges) {
					rng = a.ToolRanges[i]
				}
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unknown tool",
					Detail:   fmt.Sprintf("agent %q: %s", a.Name, detail),
					Subject:  rng.Ptr(),
				})
			}
		}
	}
	for _, p := range cfg.Plugins {
		diags = append(diags, checkPluginConfig(p, cat.ConfigSchema(p.Name))...)
	}
	if pc, ok := cat.(ProviderCatalog); ok {
		for _, p := range cfg.Providers {
			if cfg.Plugin(p.Plugin) == nil && !pc.HasProviderPlugin(p.Plugin) {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unknown provider plugin",
					Detail: fmt.Sprintf("provider %q uses plugin %q, which is neither a built-in provider "+
						"nor a declared plugin block.", p.Name, p.Plugin),
					Subject: p.PluginRange.Ptr(),
				})
			}
		}
	}
	if sc, ok := cat.(ProviderSettingsCatalog); ok {
		for _, p := range cfg.Providers {
			if p.Settings == nil {
				continue
			}
			if schema, ok := sc.ProviderSettingsSchema(p.Plugin); ok {
				_, d := p.DecodeSettings(schema)
				diags = append(diags, d...)
			}
		}
	}
	sortDiagnostics(diags)
	return diags
}

// unknownTool returns why tool is unknown, or "" when it is known.
func unknownTool(cfg *Config, cat Catalog, tool string) string {
	if !cfg.FromPlugin(tool) {
		return ""
	}
	if server, ok := MCPWildcardServer(tool); ok {
		return fmt.Sprintf("%q selects the tools of mcp %q, which is not declared.", tool, server)
	}
	if cat.HasTool(tool) {
		return ""
	}
	if server, ok := MCPServerOf(tool); ok {
		return fmt.Sprintf("no built-in or declared plugin offers a tool named %q, and no mcp %q is declared.",
			tool, server)
	}
	detail := fmt.Sprintf("no built-in or declared plugin offers a tool named %q; ", tool)
	if names, ok := cat.(interface{ ToolNames() []string }); ok {
		if near := nearest(tool, names.ToolNames()); near != "" {
			detail += fmt.Sprintf("did you mean %q? ", near)
		}
	}
	return detail + "`harness plugins list` shows the tools that exist."
}

// nearest is the candidate closest to name by edit distance, when it is
// close enough to be a typo (at most a third of the name, and 3); "" when
// none is.
func nearest(name string, candidates []string) string {
	best, bestD := "", min(3, max(1, len(name)/3))+1
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func checkPluginConfig(p *Plugin, schema []byte) hcl.Diagnostics {
	if schema == nil {
		if p.Config == nil {
			return nil
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unexpected config block",
			Detail:   fmt.Sprintf("plugin %q reports no config schema: it takes no configuration.", p.Name),
			Subject:  p.Config.MissingItemRange().Ptr(),
		}}
	}
	_, diags := DecodePluginConfig(p.Config, schema)
	for _, d := range diags {
		if d.Subject == nil {
			d.Subject = p.DeclRange.Ptr()
		}
		d.Detail = fmt.Sprintf("plugin %q: %s", p.Name, d.Detail)
	}
	return diags
}
