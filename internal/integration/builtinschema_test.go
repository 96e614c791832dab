package integration_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/harness-agent/harness/core/config"
	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	script "github.com/harness-agent/harness/plugins/provider-script"
	"github.com/harness-agent/harness/sdk"
)

// builtinSchemas are the settings schemas the built-in provider plugins
// report through sdk.ProviderDescriber, by plugin name.
func builtinSchemas(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, p := range map[string]sdk.Provider{
		"provider-deepseek": deepseek.New(), "provider-anthropic": anthropic.New(), "provider-script": script.New(),
	} {
		d, ok := p.(sdk.ProviderDescriber)
		if !ok {
			t.Fatalf("%s does not implement sdk.ProviderDescriber", name)
		}
		s, err := d.SettingsSchema(context.Background())
		if err != nil {
			t.Fatalf("%s: SettingsSchema: %v", name, err)
		}
		out[name] = s
	}
	return out
}

func schemaProps(t *testing.T, s []byte) map[string]map[string]any {
	t.Helper()
	var v struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(s, &v); err != nil {
		t.Fatal(err)
	}
	return v.Properties
}

// TestBuiltinProviderSchemasMatchHost: the attributes the host accepts in
// a built-in provider block are exactly "plugin" and those the built-in
// plugins report, and every api_key is a secret.
func TestBuiltinProviderSchemasMatchHost(t *testing.T) {
	t.Parallel()
	reported := []string{"plugin"}
	for name, s := range builtinSchemas(t) {
		for prop, body := range schemaProps(t, s) {
			if !slices.Contains(reported, prop) {
				reported = append(reported, prop)
			}
			if prop == "api_key" && body["writeOnly"] != true {
				t.Errorf("%s: api_key is not marked secret", name)
			}
		}
	}
	host := config.ProviderAttributes()
	sort.Strings(reported)
	sort.Strings(host)
	if !slices.Equal(reported, host) {
		t.Errorf("built-in plugins report %v, the host accepts %v", reported, host)
	}
}

// TestBuiltinProviderSettingsDiagnostics: each built-in's schema accepts
// the provider blocks of the examples, and a wrong type or an unknown
// attribute is a diagnostic on its line.
func TestBuiltinProviderSettingsDiagnostics(t *testing.T) {
	t.Parallel()
	schemas := builtinSchemas(t)
	for _, tt := range []struct{ plugin, src string }{
		{"provider-deepseek", `api_key = "sk-x"
require_done = "sometimes" # ERROR: Incorrect attribute value type
colour = "blue"            # ERROR: Unsupported argument
`},
		{"provider-anthropic", `headers = { x = "y" }
max_event_bytes = 0        # ERROR: Invalid plugin config value
script = "turns.txt"       # ERROR: Unsupported argument
`},
		{"provider-script", `script = "turns.txt"
chunk_size = ["a"]         # ERROR: Incorrect attribute value type
api_key = "sk-x"           # ERROR: Unsupported argument
`},
	} {
		t.Run(tt.plugin, func(t *testing.T) {
			t.Parallel()
			f, diags := hclsyntax.ParseConfig([]byte(tt.src), "agent.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p := &config.Provider{Name: "p", Plugin: tt.plugin, Settings: f.Body}
			_, diags = p.DecodeSettings(schemas[tt.plugin])
			want := 0
			for i, line := range strings.Split(tt.src, "\n") {
				_, summary, ok := strings.Cut(line, "# ERROR: ")
				if !ok {
					continue
				}
				want++
				found := false
				for _, d := range diags {
					found = found || d.Subject != nil && d.Subject.Start.Line == i+1 && d.Summary == summary
				}
				if !found {
					t.Errorf("line %d: no %q diagnostic in %v", i+1, summary, diags)
				}
			}
			if len(diags) != want {
				t.Errorf("got %d diagnostics, want %d: %v", len(diags), want, diags)
			}
		})
	}
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "agent.hcl"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples found (%v)", err)
	}
	checked := 0
	for _, path := range examples {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			if b.Type != "provider" {
				continue
			}
			plugin := config.DefaultProviderPlugin
			if a, ok := b.Body.Attributes["plugin"]; ok {
				v, _ := a.Expr.Value(nil)
				plugin = v.AsString()
			}
			s, ok := schemas[plugin]
			if !ok {
				continue // a third-party plugin block
			}
			content, remain, diags := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "plugin"}}})
			_ = content
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p := &config.Provider{Name: b.Labels[0], Plugin: plugin, Settings: remain}
			if _, diags := p.DecodeSettings(s); len(diags) > 0 {
				t.Errorf("%s: provider %q: %v", path, b.Labels[0], diags)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no example declares a built-in provider")
	}
}
