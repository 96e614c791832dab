package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
)

func TestCheckConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.hcl")
	const src = "provider \"p\" {\n  api_key = \"k\"\n}\nmodel \"m\" {\n  provider = \"p\"\n  id = \"x\"\n}\nagent \"a\" {\n  model = \"m\"\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() *config.Config {
		cfg, diags := config.Load(path)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return cfg
	}
	recorded := load().Fingerprint()
	if err := os.WriteFile(path, []byte(src+"# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := load()
	tests := []struct {
		name    string
		hash    string
		require bool
		want    string // in the error; "" for none
	}{
		{"unchanged", edited.Fingerprint(), true, ""},
		{"changed", recorded, false, "agent.hcl changed"},
		{"no fingerprint, resume", "", false, ""},
		{"no fingerprint, approve", "", true, "without a fingerprint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckConfig(session.SessionInfo{ID: "s-1", ConfigHash: tt.hash}, edited, "run action a-1", tt.require)
			var changed *ConfigChangedError
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.want != "" && (!errors.As(err, &changed) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--accept-config-change")):
				t.Errorf("error %v, want a ConfigChangedError saying %q and the way out", err, tt.want)
			}
		})
	}
}
