package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/core/config"
)

func TestCheckAPIKeysNamesTheUnsetVariable(t *testing.T) {
	dir := t.TempDir()
	src := `provider "ds" {
  api_key = env("HARNESS_TEST_UNSET_KEY")
}
provider "idle" {
  api_key = env("HARNESS_TEST_UNSET_KEY_TOO")
}
model "flash" {
  provider = "ds"
  id       = "deepseek-chat"
}
agent "a" {
  model = "flash"
}
`
	path := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HARNESS_TEST_UNSET_KEY", "")
	cfg, diags := config.Load(path)
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	got := config.CheckAPIKeys(cfg)
	if len(got) != 1 || got[0].Summary != "HARNESS_TEST_UNSET_KEY is not set" || got[0].Subject == nil || got[0].Subject.Start.Line != 2 {
		t.Fatalf("diagnostics %v, want one for HARNESS_TEST_UNSET_KEY on line 2 (the unused provider is not reported)", got)
	}
	t.Setenv("HARNESS_TEST_UNSET_KEY", "sk-x")
	cfg, _ = config.Load(path)
	if got := config.CheckAPIKeys(cfg); len(got) != 0 {
		t.Errorf("with the variable set: %v", got)
	}
}
