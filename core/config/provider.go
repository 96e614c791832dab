package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

var providerSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "plugin"},
		{Name: "api_key"},
		{Name: "base_url"},
		{Name: "timeout_first_token"},
		{Name: "timeout_idle"},
		{Name: "headers"},
		{Name: "require_done"},
		{Name: "max_event_bytes"},
		{Name: "script"},
		{Name: "chunk_size"},
		{Name: "delay_ms"},
	},
}

func (l *loader) decodeProvider(it item) *Provider {
	p := &Provider{
		Name:              it.name(),
		Plugin:            DefaultProviderPlugin,
		TimeoutFirstToken: 120 * time.Second,
		TimeoutIdle:       60 * time.Second,
		RequireDone:       true,
		DeclRange:         it.block.DefRange,
		PluginRange:       it.block.DefRange,
	}
	if name, ok := l.thirdPartyProvider(it); ok {
		// The plugin owns its settings: everything but "plugin" is decoded
		// against the schema it reports (see DecodeProviderSettings).
		content, remain, diags := it.block.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "plugin"}}})
		l.diags = append(l.diags, diags...)
		p.Plugin, p.PluginRange, p.Settings = name, content.Attributes["plugin"].Expr.Range(), remain
		return p
	}
	a := l.attrs(it.src, l.content(it.block.Body, providerSchema).Attributes)
	if a.nonEmptyStr("plugin", &p.Plugin) {
		p.PluginRange = a.rangeOf("plugin")
	}
	if a.str("api_key", &p.APIKey) {
		rng := a.rangeOf("api_key")
		p.APIKeyRange = rng
		p.APIKeyEnv = envCallName(a.m["api_key"].Expr)
		if len(p.APIKey) >= minSecretLen && isLiteral(a.m["api_key"].Expr) {
			p.APIKeyLiteral = &rng
		}
	}
	if a.str("base_url", &p.BaseURL) && p.BaseURL != "" {
		if u, err := url.Parse(p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			a.errorf(a.rangeOf("base_url"), "Invalid base_url",
				"base_url must be an http:// or https:// URL; got %q.", p.BaseURL)
		}
	}
	a.duration("timeout_first_token", &p.TimeoutFirstToken)
	a.duration("timeout_idle", &p.TimeoutIdle)
	if h, ok := a.strMap("headers"); ok {
		p.Headers = h
	}
	a.boolean("require_done", &p.RequireDone)
	a.integer("max_event_bytes", &p.MaxEventBytes, 1)
	p.Script = l.resolveScript(a, it.src)
	a.integerInt("chunk_size", &p.ChunkSize, 1)
	a.integerInt("delay_ms", &p.DelayMS, 0)
	return p
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

// resolveScript resolves the script of an offline scripted provider against
// its file's directory and reports when it is not a readable file.
func (l *loader) resolveScript(a *attrs, src *source) string {
	var p string
	if !a.nonEmptyStr("script", &p) {
		return ""
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(src.dir, p)
	}
	full = filepath.Clean(full)
	if st, err := os.Stat(full); err != nil || st.IsDir() {
		l.errorf(a.rangeOf("script"), "Script file not found",
			"script %q is not a readable file; relative paths start at the directory of the file that declares it.", p)
	} else if data, err := os.ReadFile(full); err == nil && l.cfg.Inputs != nil {
		l.cfg.Inputs[full] = data
	}
	return full
}

// PluginConfigJSON is what the core sends the provider plugin's Configure: its connection
// settings, durations in milliseconds. It holds the API key: never log it.
func (p *Provider) PluginConfigJSON() json.RawMessage {
	headers := p.Headers
	if headers == nil {
		headers = map[string]string{}
	}
	out, err := json.Marshal(struct {
		APIKey              string            `json:"api_key"`
		BaseURL             string            `json:"base_url"`
		TimeoutFirstTokenMS int64             `json:"timeout_first_token_ms"`
		TimeoutIdleMS       int64             `json:"timeout_idle_ms"`
		Headers             map[string]string `json:"headers"`
		RequireDone         bool              `json:"require_done"`
		MaxEventBytes       int64             `json:"max_event_bytes,omitempty"`
		Script              string            `json:"script,omitempty"`
		ChunkSize           int               `json:"chunk_size,omitempty"`
		DelayMS             int               `json:"delay_ms,omitempty"`
	}{
		APIKey:              p.APIKey,
		BaseURL:             p.BaseURL,
		TimeoutFirstTokenMS: p.TimeoutFirstToken.Milliseconds(),
		TimeoutIdleMS:       p.TimeoutIdle.Milliseconds(),
		Headers:             headers,
		RequireDone:         p.RequireDone,
		MaxEventBytes:       p.MaxEventBytes,
		Script:              p.Script,
		ChunkSize:           p.ChunkSize,
		DelayMS:             p.DelayMS,
	})
	if err != nil {
		// Strings, integers and a string map always marshal.
		panic(err)
	}
	return out
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

// ProviderAttributes lists the attributes the host accepts in a built-in
// provider block ("plugin" and the built-in providers' settings), for the
// test that keeps them equal to what those plugins report.
func ProviderAttributes() []string {
	out := make([]string, 0, len(providerSchema.Attributes))
	for _, a := range providerSchema.Attributes {
		out = append(out, a.Name)
	}
	return out
}
