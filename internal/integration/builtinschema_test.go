package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harness-agent/harness/core/config"
	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	script "github.com/harness-agent/harness/plugins/provider-script"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
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

// builtinLookup is what cmd/harness passes config.LoadWith: the schema
// each built-in provider reports, asked in this process.
func builtinLookup(t *testing.T) config.Options {
	schemas := builtinSchemas(t)
	return config.Options{ProviderSchemas: func(name string) ([]byte, bool) {
		s, ok := schemas[name]
		return s, ok
	}}
}

// TestBuiltinProviderSchemasValid: a built-in's settings schema is valid
// JSON Schema, checked against the metaschema here because Load compiles it
// without that check (config.Options.ProviderSchemas).
func TestBuiltinProviderSchemasValid(t *testing.T) {
	t.Parallel()
	for name, s := range builtinSchemas(t) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("settings.json", doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := c.Compile("settings.json"); err != nil {
			t.Errorf("%s: its settings schema is not valid JSON Schema: %v", name, err)
		}
	}
}

// TestBuiltinProviderSchemas: the built-ins mark what the host must treat
// specially: every api_key secret, the scripted provider's script a path.
func TestBuiltinProviderSchemas(t *testing.T) {
	t.Parallel()
	for name, s := range builtinSchemas(t) {
		props := schemaProps(t, s)
		if key, ok := props["api_key"]; ok && key["writeOnly"] != true {
			t.Errorf("%s: api_key is not marked secret", name)
		}
		for _, d := range []string{"timeout_first_token", "timeout_idle"} {
			if p, ok := props[d]; ok && p["format"] != schema.FormatDuration {
				t.Errorf("%s: %s is not a duration: %v", name, d, p)
			}
		}
	}
	if p := schemaProps(t, builtinSchemas(t)["provider-script"])["script"]; p["format"] != schema.FormatPath {
		t.Errorf("provider-script: script is not a path: %v", p)
	}
}

// TestBuiltinProviderSettingsFixtures loads each fixture of
// testdata/providersettings the way the harness does (config.LoadWith and
// the built-ins' schemas): the errors are exactly those its
// "# ERROR: <summary>" markers announce, on those lines. Every example
// example's provider blocks load without one.
func TestBuiltinProviderSettingsFixtures(t *testing.T) {
	t.Parallel()
	opts := builtinLookup(t)
	fixtures, err := filepath.Glob(filepath.Join("testdata", "providersettings", "*.hcl"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	for _, path := range fixtures {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, diags := config.LoadWith(path, opts)
			want := 0
			for i, line := range strings.Split(string(src), "\n") {
				_, summary, ok := strings.Cut(line, "# ERROR: ")
				if !ok {
					continue
				}
				want++
				found := false
				for _, d := range diags.Errs() {
					d := d.(*hcl.Diagnostic)
					found = found || d.Subject != nil && d.Subject.Start.Line == i+1 && d.Summary == summary
				}
				if !found {
					t.Errorf("line %d: no %q diagnostic in %v", i+1, summary, diags)
				}
			}
			if got := len(diags.Errs()); got != want {
				t.Errorf("got %d errors, want %d: %v", got, want, diags)
			}
		})
	}
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "agent.hcl"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples found (%v)", err)
	}
	for _, path := range examples {
		// Only the providers' settings: an example's plugin binaries are
		// built by its own test.
		_, diags := config.LoadWith(path, opts)
		for _, d := range diags.Errs() {
			if d := d.(*hcl.Diagnostic); strings.HasPrefix(d.Detail, "provider ") {
				t.Errorf("%s: %s: %s", path, d.Summary, d.Detail)
			}
		}
	}
}

// TestBuiltinProviderConfigureJSON: what Load decodes from a built-in's
// block is what the plugin's Configure accepts, and a path setting arrives
// absolute.
func TestBuiltinProviderConfigureJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "providersettings", "script.hcl")
	cfg, _ := config.LoadWith(path, builtinLookup(t))
	p := cfg.Provider("ok")
	if p == nil || p.Config == nil {
		t.Fatalf("provider ok: %+v, want its settings decoded", p)
	}
	var got script.Config
	if err := json.Unmarshal(p.Config, &got); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Join("testdata", "providersettings", "turns.script"))
	if got.Script != abs || got.ChunkSize != 4 {
		t.Errorf("Configure gets %s, want script %s and chunk_size 4", p.Config, abs)
	}
	if err := script.New().Configure(context.Background(), p.Config); err != nil {
		t.Errorf("provider-script refuses what the host decoded: %v", err)
	}
	for name, prov := range map[string]sdk.Provider{"provider-deepseek": deepseek.New(), "provider-anthropic": anthropic.New()} {
		src := "provider \"p\" {\n  plugin = \"" + name + "\"\n  api_key = \"k\"\n  base_url = \"http://127.0.0.1:1\"\n" +
			"  timeout_first_token = \"1m30s\"\n  timeout_idle = \"250ms\"\n  headers = { X-Num = 5 }\n  require_done = false\n  max_event_bytes = 4096\n}\n"
		file := filepath.Join(t.TempDir(), "agent.hcl")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, diags := config.LoadWith(file, builtinLookup(t))
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags)
		}
		c := cfg.Provider("p").Config
		if !strings.Contains(string(c), `"X-Num":"5"`) || !strings.Contains(string(c), `"timeout_idle":"250ms"`) {
			t.Errorf("%s: Configure gets %s", name, c)
		}
		if err := prov.Configure(context.Background(), c); err != nil {
			t.Errorf("%s refuses what the host decoded: %v", name, err)
		}
	}
}
