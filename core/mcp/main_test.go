package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// npmServer returns the path of an MCP server that .ci/run installs from
// npm into .ci/npm, and skips the test when it is not there.
func npmServer(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", ".ci", "npm", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is not installed (run `npm ci --prefix .ci/npm`, as .ci/run does): %v", name, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not installed: %v", err)
	}
	return path
}
