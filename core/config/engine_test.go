package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestEngineBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.hcl")
	src := `provider "p" {}
model "m" { provider = "p" }
agent "a" {
  model = "m"
  permissions { approval_timeout = "24h" }
}
engine "temporal" {
  address    = "temporal.internal:7233"
  task_queue = "agents"
  heartbeat  = "5s"
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load(path)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	e := cfg.Engine
	if e == nil || e.Name != EngineTemporal || e.Address != "temporal.internal:7233" || e.TaskQueue != "agents" || e.Heartbeat != 5*time.Second {
		t.Fatalf("engine = %+v", e)
	}
	if got := cfg.Agent("a").Permissions.ApprovalTimeout; got != 24*time.Hour {
		t.Errorf("approval_timeout = %s, want 24h", got)
	}
}
