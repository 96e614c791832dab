package config_test

import (
	"os"
	"path/filepath"
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
