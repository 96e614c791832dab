package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// A provider block is the plugin's: the host reads only "plugin", and
// api_key for what it owns (CheckAPIKeys, the literal-key warning,
// redaction). Every other attribute is a setting, decoded against the
// schema the plugin reports: at Load for a built-in (Options.ProviderSchemas,
// no process started), when it starts for a plugin block (DecodeSettings).
var providerHostSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "plugin"}}}

func (l *loader) decodeProvider(it item) *Provider {
	p := &Provider{
		Name:        it.name(),
		Plugin:      DefaultProviderPlugin,
		DeclRange:   it.block.DefRange,
		PluginRange: it.block.DefRange,
	}
	content, settings, diags := it.block.Body.PartialContent(providerHostSchema)
	l.diags = append(l.diags, diags...)
	a := l.attrs(it.src, content.Attributes)
	if a.nonEmptyStr("plugin", &p.Plugin) {
		p.PluginRange = a.rangeOf("plugin")
	}
	l.readAPIKey(p, settings, it.src)
	if name, ok := l.thirdPartyProvider(it); ok {
		p.Plugin, p.Settings = name, settings
		return p
	}
	if l.opts.ProviderSchemas == nil {
		return p
	}
	schema, ok := l.opts.ProviderSchemas(p.Plugin)
	if !ok {
		return p // Check reports the unknown plugin
	}
	env := decodeEnv{ctx: it.src.ctx, dir: it.src.dir, builtinSchema: true, record: func(path string, data []byte) {
		l.cfg.Inputs[path] = data
	}}
	out, d := p.decodeSettings(settings, schema, env)
	l.diags = append(l.diags, d...)
	if !d.HasErrors() {
		p.Config, p.Secrets = out, SecretSettings(schema, out)
	}
	return p
}

// readAPIKey reads api_key for the host's own uses without taking it from
// the settings: the plugin's schema still decides whether it is valid.
func (l *loader) readAPIKey(p *Provider, settings hcl.Body, src *source) {
	attrs, _ := settings.JustAttributes()
	attr, ok := attrs["api_key"]
	if !ok {
		return
	}
	v, diags := attr.Expr.Value(src.ctx)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return // the settings' decoding reports it
	}
	rng := attr.Expr.Range()
	p.APIKey, p.APIKeyRange, p.APIKeyEnv = v.AsString(), rng, envCallName(attr.Expr)
	if len(p.APIKey) >= minSecretLen && isLiteral(attr.Expr) {
		p.APIKeyLiteral = &rng
	}
}

// thirdPartyProvider reports whether a provider block's plugin attribute
// names a plugin block (a literal string), and which.
func (l *loader) thirdPartyProvider(it item) (string, bool) {
	attrs, _ := it.block.Body.JustAttributes()
	attr, ok := attrs["plugin"]
	if !ok {
		return "", false
	}
	v, diags := attr.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", false
	}
	name := v.AsString()
	return name, slices.Contains(l.declared[blockPlugin], name)
}

// minSecretLen is the shortest api_key worth a warning: shorter ones are
// placeholders ("ollama") for servers that want none.
const minSecretLen = 8

// isLiteral reports whether expr is a constant: it evaluates without
// variables or functions (env(), file()).
func isLiteral(expr hcl.Expression) bool {
	_, diags := expr.Value(nil)
	return !diags.HasErrors()
}

// warnLiteralKeys warns about an API key written out in a configuration
// file inside the workspace: the agent's file tools can read the file. The
// host redacts the key from tool results, but a key belongs in the
// environment.
func (l *loader) warnLiteralKeys() {
	for _, p := range l.cfg.Providers {
		if p.APIKeyLiteral == nil {
			continue
		}
		file, err := filepath.Abs(p.APIKeyLiteral.Filename)
		if err != nil || !insideDir(file, l.cfg.Workspace) {
			continue
		}
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "API key written in a file the agent can read",
			Detail: fmt.Sprintf("provider %q has its api_key written out in %s, which is inside the workspace %s. "+
				"harness redacts it from tool results, but anything that can read the workspace can read it: "+
				"use api_key = env(\"%s_API_KEY\") and set the variable instead.",
				p.Name, file, l.cfg.Workspace, strings.ToUpper(p.Name)),
			Subject: p.APIKeyLiteral,
		})
	}
}

func insideDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
