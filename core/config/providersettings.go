package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// anySettings is the schema of a provider plugin that reports none: any
// attributes, unchecked.
var anySettings = []byte(`{"type":"object","additionalProperties":true}`)

// DecodeSettings decodes the settings of a provider block on a third-party
// plugin (every attribute but "plugin") against the JSON Schema the plugin
// reports (nil: none, so any attributes pass), with the diagnostics of a
// plugin's config block, and returns them as the JSON object Configure gets.
// Load decodes a built-in provider's the same way (Provider.Config). The
// result holds the provider's secrets: never log it.
func (p *Provider) DecodeSettings(schema []byte) (json.RawMessage, hcl.Diagnostics) {
	return p.decodeSettings(p.Settings, schema, pluginConfigEnv(p.Settings))
}

func (p *Provider) decodeSettings(settings hcl.Body, schema []byte, env decodeEnv) (json.RawMessage, hcl.Diagnostics) {
	if schema == nil {
		schema, env.builtinSchema = anySettings, true // the host's own constant
	}
	out, diags := decodeConfig(settings, schema, env)
	for _, d := range diags {
		if d.Subject == nil {
			d.Subject = p.DeclRange.Ptr()
		}
		d.Detail = strings.Replace(d.Detail, "config has no attribute", "the plugin's settings have no attribute", 1)
		d.Detail = fmt.Sprintf("provider %q (plugin %q): %s", p.Name, p.Plugin, d.Detail)
	}
	if out == nil && !diags.HasErrors() {
		out = json.RawMessage("{}")
	}
	return out, diags
}

// ProviderPluginBlock reports whether the plugin block name serves a
// provider block: a provider plugin, not a tool plugin.
func (c *Config) ProviderPluginBlock(name string) bool {
	for _, p := range c.Providers {
		if p.Settings != nil && p.Plugin == name {
			return true
		}
	}
	return false
}

// settingsSchema is what the host reads of a settings schema: which
// properties are secret ("writeOnly": true).
type settingsSchema struct {
	Properties map[string]struct {
		WriteOnly bool `json:"writeOnly"`
	} `json:"properties"`
}

// DeclaresSecrets reports whether a settings schema marks a property
// secret, or cannot say (not a schema object with properties): a plugin
// that may hold a secret is kept in a process of its own.
func DeclaresSecrets(schema []byte) bool {
	var s settingsSchema
	if json.Unmarshal(schema, &s) != nil || s.Properties == nil {
		return true
	}
	for _, prop := range s.Properties {
		if prop.WriteOnly {
			return true
		}
	}
	return false
}

// SecretSettings returns the string values of the settings that schema
// marks secret ("writeOnly": true), sorted: what the host redacts.
func SecretSettings(schema, settings []byte) []string {
	var s settingsSchema
	var values map[string]any
	if json.Unmarshal(schema, &s) != nil || json.Unmarshal(settings, &values) != nil {
		return nil
	}
	var out []string
	for name, prop := range s.Properties {
		if v, ok := values[name].(string); ok && prop.WriteOnly && v != "" {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
