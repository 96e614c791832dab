package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/core/config"
)

func TestProtectedPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"models.hcl": "provider \"p\" {\n  api_key = \"sk-literal-key-0001\"\n}\nmodel \"m\" {\n  provider = \"p\"\n  id = \"x\"\n}\n",
		"agent.hcl": "agent \"a\" {\n  model = \"m\"\n  system = file(\"prompts/system.md\")\n}\nplugin \"tool\" {\n  path = \"bin/tool\"\n  sha256 = \"" + zeros + "\"\n}\n" +
			"mcp \"local\" {\n  command = [\"./mcp/server\", \"--stdio\"]\n}\nmcp \"npx\" {\n  command = [\"npx\", \"server\"]\n}\n",
		"bin/tool":          "#!/bin/sh\n",
		"mcp/server":        "#!/bin/sh\n",
		"notes/ignore.md":   "",
		"prompts/system.md": "Be careful.\n",
		".git/config":       "[core]\n",
		".git/hooks/README": "",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := config.Load(dir)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got := map[string]bool{}
	for _, p := range protectedPaths(cfg, "/state/harness.db", "/state", "/usr/bin/harness") {
		got[p.Path] = true
		if p.NewHCL && p.Path != dir {
			t.Errorf("NewHCL on %s, want it on the directory configuration only", p.Path)
		}
	}
	for _, want := range []string{
		filepath.Join(dir, "agent.hcl"), filepath.Join(dir, "models.hcl"), dir,
		filepath.Join(dir, config.LockFileName), filepath.Join(dir, "bin", "tool"),
		filepath.Join(dir, "mcp", "server"), "/usr/bin/harness",
		"/state", "/state/harness.db", "/state/harness.db-wal", "/state/harness.db-shm",
		filepath.Join(dir, ".harness"), filepath.Join(dir, "prompts", "system.md"),
		filepath.Join(dir, ".git", "config"), filepath.Join(dir, ".git", "hooks"),
	} {
		if !got[want] {
			t.Errorf("%s is not protected (have %v)", want, got)
		}
	}
	if got[filepath.Join(dir, "notes", "ignore.md")] || got["npx"] {
		t.Errorf("an ordinary file or a PATH program is protected: %v", got)
	}
	for _, p := range protectedPaths(cfg, filepath.Join(filepath.Dir(dir), "harness.db"), filepath.Dir(dir), "") {
		if p.Path == filepath.Dir(dir) {
			t.Errorf("a state folder that holds the workspace is protected whole")
		}
	}
	secret := secretFiles(cfg)
	if len(secret) != 1 || secret[0].Path != filepath.Join(dir, "models.hcl") {
		t.Errorf("secret files %+v, want models.hcl", secret)
	}
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"
