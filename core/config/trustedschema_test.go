package config

import (
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

// Loading a configuration whose provider is on a built-in compiles the
// built-in's settings schema as trusted: the JSON Schema metaschemas (about
// 6,000 allocations and 2 ms, once per process) are not compiled on the
// path before any plugin starts. A third-party schema still is checked
// against them, which the same count shows.
func TestBuiltinSettingsSchemaSkipsMetaschemas(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.hcl")
	testkit.WriteFile(t, path, `provider "deepseek" {
  api_key  = "sk-test-0123456789"
  base_url = "http://127.0.0.1:1"
}
`)
	counts := testkit.AllocsInFreshProcess(t, func() {
		if _, diags := LoadWith(path, testOptions); diags.HasErrors() {
			panic(diags.Error())
		}
	}, func() {
		if _, _, err := compileConfigSchema([]byte(`{"type":"object","properties":{"x":{"type":"string"}}}`), false); err != nil {
			panic(err)
		}
	})
	load, thirdParty := counts[0], counts[1]
	t.Logf("allocations: Load %d, then a third-party schema's first compile %d", load, thirdParty)
	if thirdParty < 3000 {
		t.Fatalf("a third-party schema's first compile made %d allocations: the metaschemas were compiled before it (by Load?)", thirdParty)
	}
	if load > thirdParty {
		t.Errorf("Load made %d allocations, more than compiling the metaschemas (%d): the built-in's schema was checked against them", load, thirdParty)
	}
}

// Every schema compiled as trusted is still valid: anySettings, the host's
// own constant, compiles against the metaschema.
func TestAnySettingsIsValid(t *testing.T) {
	t.Parallel()
	if _, _, err := compileConfigSchema(anySettings, false); err != nil {
		t.Fatal(err)
	}
}
