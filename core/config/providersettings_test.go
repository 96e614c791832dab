package config_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/sdk/schema"
)

var greeterSchema = schema.Object(
	schema.String("reply", "The canned answer."),
	schema.Integer("retries", "Retries.").Min(0),
	schema.String("api_key", "The key.").Secret(),
).JSON()

// TestProviderSettingsFromSchema: a provider block on a plugin block is
// decoded against the plugin's schema; every problem is a diagnostic at
// its attribute.
func TestProviderSettingsFromSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greeter"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `plugin "greeter" {
  path = "./greeter"
}

provider "g" {
  plugin  = "greeter"
  reply   = ["a", "list"]    # ERROR: Incorrect attribute value type
  retries = -1               # ERROR: Invalid plugin config value
  colour  = "blue"           # ERROR: Unsupported argument
  api_key = "sk-greeter-secret"
}
`
	path := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.Load(path)
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	p := cfg.Provider("g")
	if p == nil || p.Settings == nil || p.Plugin != "greeter" || !cfg.ProviderPluginBlock("greeter") {
		t.Fatalf("provider %+v: want a third-party provider on plugin greeter", p)
	}
	_, diags = p.DecodeSettings(greeterSchema)
	for i, line := range strings.Split(src, "\n") {
		_, summary, ok := strings.Cut(line, "# ERROR: ")
		if !ok {
			continue
		}
		found := false
		for _, d := range diags {
			found = found || d.Subject != nil && d.Subject.Start.Line == i+1 && d.Summary == summary
		}
		if !found {
			t.Errorf("no %q diagnostic at line %d; got %v", summary, i+1, diags)
		}
	}
	for _, d := range diags {
		if strings.Contains(d.Detail, "sk-greeter-secret") {
			t.Errorf("a diagnostic shows the secret: %s", d.Detail)
		}
	}

}

func TestSecretSettings(t *testing.T) {
	t.Parallel()
	got := config.SecretSettings(greeterSchema, []byte(`{"reply":"hi","api_key":"sk-1234567890"}`))
	if len(got) != 1 || got[0] != "sk-1234567890" {
		t.Fatalf("secrets %v, want the api_key only", got)
	}
}

// TestBuiltinProviderSettingsAtLoad: a provider block on a built-in is
// decoded at Load against the schema the caller knows for it; a path
// setting arrives absolute and counts as an input of the configuration.
func TestBuiltinProviderSettingsAtLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	turns := filepath.Join(dir, "turns.script")
	if err := os.WriteFile(turns, []byte("turn {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `provider "s" {
  plugin     = "provider-script"
  script     = "turns.script"
  chunk_size = "4"
  token      = "sk-scripted-secret"
}
`
	path := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	scriptSchema := schema.Object(
		schema.String("script", "file").Path().Required(),
		schema.Integer("chunk_size", "bytes"),
		schema.String("token", "a secret").Secret(),
	).JSON()
	lookup := func(name string) ([]byte, bool) { return scriptSchema, name == "provider-script" }
	cfg, diags := config.LoadWith(path, config.Options{ProviderSchemas: lookup})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	p := cfg.Provider("s")
	want := `{"chunk_size":4,"script":` + strconv.Quote(turns) + `,"token":"sk-scripted-secret"}`
	if string(p.Config) != want || p.Settings != nil {
		t.Errorf("Config %s (settings %v), want %s and no body left", p.Config, p.Settings, want)
	}
	if len(p.Secrets) != 1 || p.Secrets[0] != "sk-scripted-secret" {
		t.Errorf("secrets %q, want the token", p.Secrets)
	}
	if _, ok := cfg.Inputs[turns]; !ok {
		t.Errorf("the script is not an input of the configuration: %v", cfg.Inputs)
	}
	// Without the built-ins' schemas nothing is decoded (or refused).
	cfg, diags = config.Load(path)
	if diags.HasErrors() || cfg.Provider("s").Config != nil {
		t.Errorf("Load without schemas: config %s, %v", cfg.Provider("s").Config, diags)
	}
}
