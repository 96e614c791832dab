package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// npmServer returns the path of an MCP server that scripts/test.sh installs
// from npm into .ci/npm; a plain go test skips when it is not there.
func npmServer(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", ".ci", "npm", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("HARNESS_TEST_MCP") == "required" { // set by scripts/test.sh, which installed them
			t.Fatalf("%s is missing although scripts/test.sh installed the MCP servers: %v", name, err)
		}
		t.Skipf("%s is not installed (scripts/test.sh installs it: npm ci --prefix .ci/npm): %v", name, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not installed: %v", err)
	}
	return path
}
