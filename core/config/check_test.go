package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

const weatherSchema = `{
  "type": "object",
  "properties": {
    "units":   {"type": "string", "enum": ["metric", "imperial"]},
    "days":    {"type": "integer", "minimum": 1},
    "ratio":   {"type": "number"},
    "cities":  {"type": "array", "items": {"type": "string"}},
    "verbose": {"type": "boolean"},
    "limits":  {"type": "object", "properties": {"max": {"type": "number"}}, "additionalProperties": false},
    "extra":   {}
  },
  "required": ["units"]
}`

// fakeCatalog answers like a plugin host whose plugins offer fixed tools and schemas.
type fakeCatalog struct {
	tools     []string
	schemas   map[string]string
	providers []string
}

func (c *fakeCatalog) HasTool(name string) bool { return slices.Contains(c.tools, name) }

func (c *fakeCatalog) ConfigSchema(plugin string) []byte {
	if s, ok := c.schemas[plugin]; ok {
		return []byte(s)
	}
	return nil
}

func (c *fakeCatalog) HasProviderPlugin(name string) bool { return slices.Contains(c.providers, name) }

var (
	_ Catalog         = (*fakeCatalog)(nil)
	_ ProviderCatalog = (*fakeCatalog)(nil)
)

func newFakeCatalog() *fakeCatalog {
	return &fakeCatalog{
		tools: []string{"read_file", "write_file", "terminal", "search_workspace", "weather_forecast"},
		schemas: map[string]string{
			"weather":     weatherSchema,
			"forecast":    weatherSchema,
			"needsconfig": weatherSchema,
		},
		providers: []string{"provider-deepseek", "provider-script"},
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "check", "check.hcl")
	cfg, diags := loadTest(path)
	if diags.HasErrors() {
		t.Fatalf("Load: %v", diags)
	}
	diags = Check(cfg, newFakeCatalog())
	checkMarkers(t, readMarkers(t, path), diags)
	if t.Failed() {
		t.Logf("diagnostics: %v", diags)
	}
}

func TestCheckValidFixture(t *testing.T) {
	t.Parallel()
	cfg, diags := loadTest("testdata/valid/full.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// Without HasProviderPlugin, provider plugins are not checked.
	cat := struct{ Catalog }{newFakeCatalog()}
	if diags := Check(cfg, cat); len(diags) > 0 {
		t.Errorf("Check: %v", diags)
	}
}

// parseBody parses HCL source as the body of a config block.
func parseBody(t *testing.T, src string) hcl.Body {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "config.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return f.Body
}

func TestDecodePluginConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		src    string
		schema string
		want   string   // JSON, when no error is expected
		errors []string // summary: detail substrings, one per expected error
	}{
		{
			name:   "all types",
			src:    "units = \"metric\"\ndays = 3\nratio = 0.25\ncities = [\"Oslo\", 5]\nverbose = true\nlimits = { max = 2 }\nextra = { any = [1, \"a\"] }\n",
			schema: weatherSchema,
			want:   `{"cities":["Oslo","5"],"days":3,"extra":{"any":[1,"a"]},"limits":{"max":2},"ratio":0.25,"units":"metric","verbose":true}`,
		},
		{
			name:   "HCL conversions",
			src:    "units = \"metric\"\ndays = \"4\"\nverbose = \"false\"\n",
			schema: weatherSchema,
			want:   `{"days":4,"units":"metric","verbose":false}`,
		},
		{
			name:   "functions",
			src:    "units = lower(\"METRIC\")\n",
			schema: weatherSchema,
			want:   `{"units":"metric"}`,
		},
		{
			name:   "empty schema object",
			src:    "",
			schema: `{"type": "object"}`,
			want:   `{}`,
		},
		{
			name:   "wrong type",
			src:    "units = \"metric\"\ndays = \"three\"\n",
			schema: weatherSchema,
			errors: []string{"Incorrect attribute value type: days: a number is required"},
		},
		{
			name:   "not a whole number",
			src:    "units = \"metric\"\ndays = 1.5\n",
			schema: weatherSchema,
			errors: []string{"Incorrect attribute value type: days: a whole number is required"},
		},
		{
			name:   "unknown attribute",
			src:    "units = \"metric\"\nday = 3\n",
			schema: weatherSchema,
			errors: []string{`Unsupported argument: config has no attribute "day". Did you mean "days"?`},
		},
		{
			name:   "unknown nested attribute",
			src:    "units = \"metric\"\nlimits = { maximum = 3 }\n",
			schema: weatherSchema,
			errors: []string{`Incorrect attribute value type: limits: unsupported attribute "maximum"`},
		},
		{
			name:   "missing required",
			src:    "days = 3\n",
			schema: weatherSchema,
			errors: []string{`Missing required argument: config: the plugin requires "units".`},
		},
		{
			name:   "enum and minimum together",
			src:    "units = \"kelvin\"\ndays = 0\n",
			schema: weatherSchema,
			errors: []string{"Invalid plugin config value: config.days: minimum", "Invalid plugin config value: config.units: value must be one of"},
		},
		{
			name:   "schema is not an object",
			src:    "",
			schema: `{"type": "string"}`,
			errors: []string{"Invalid plugin config schema"},
		},
		{
			name:   "schema is not JSON",
			src:    "",
			schema: `{`,
			errors: []string{"Invalid plugin config schema"},
		},
		{
			name:   "extra properties allowed",
			src:    "anything = 1\n",
			schema: `{"type": "object", "additionalProperties": true}`,
			want:   `{"anything":1}`,
		},
		{
			name:   "blocks are not attributes",
			src:    "nested {\n}\n",
			schema: `{"type": "object"}`,
			errors: []string{"Unexpected \"nested\" block"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, diags := DecodePluginConfig(parseBody(t, tt.src), []byte(tt.schema))
			if tt.errors == nil {
				if diags.HasErrors() {
					t.Fatalf("unexpected diagnostics: %v", diags)
				}
				if string(got) != tt.want {
					t.Errorf("JSON = %s, want %s", got, tt.want)
				}
				return
			}
			if got != nil {
				t.Errorf("JSON = %s, want nil on errors", got)
			}
			var msgs []string
			for _, d := range diags {
				msgs = append(msgs, d.Summary+": "+d.Detail)
				if d.Subject == nil {
					t.Errorf("diagnostic without range: %s", d.Summary)
				}
			}
			if len(msgs) != len(tt.errors) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(msgs), len(tt.errors), strings.Join(msgs, "\n"))
			}
			slices.Sort(msgs)
			for i, want := range tt.errors {
				if !strings.Contains(msgs[i], want) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, msgs[i], want)
				}
			}
		})
	}
}

func TestDecodePluginConfigNilBody(t *testing.T) {
	t.Parallel()
	got, diags := DecodePluginConfig(nil, []byte(`{"type": "object"}`))
	if diags.HasErrors() || string(got) != "{}" {
		t.Errorf("DecodePluginConfig(nil) = %s, %v; want {}", got, diags)
	}
	_, diags = DecodePluginConfig(nil, []byte(weatherSchema))
	if !diags.HasErrors() || diags[0].Summary != "Missing required argument" {
		t.Errorf("DecodePluginConfig(nil) with required = %v, want Missing required argument", diags)
	}
}

// TestDecodePluginConfigFile checks that file() in a config block reads relative to the
// configuration file that holds the block.
func TestDecodePluginConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "units.txt"), []byte("imperial"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "plugin \"w\" {\n  path = \"w\"\n  config {\n    units = file(\"units.txt\")\n  }\n}\nagent \"a\" {\n  model = \"m\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "w"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := Load(path) // model "m" is not declared: irrelevant here
	p := cfg.Plugin("w")
	if p == nil || p.Config == nil {
		t.Fatal("plugin w has no config body")
	}
	got, diags := DecodePluginConfig(p.Config, []byte(weatherSchema))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var v map[string]string
	if err := json.Unmarshal(got, &v); err != nil || v["units"] != "imperial" {
		t.Errorf("config = %s, want units from units.txt", got)
	}
}
