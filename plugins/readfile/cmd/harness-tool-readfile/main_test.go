package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
	"github.com/harness-agent/harness/sdk"
)

// The test binary doubles as the plugin: started with serveEnv set, it
// runs main instead of the tests.
const serveEnv = "HARNESS_TEST_SERVE_READFILE"

func TestMain(m *testing.M) { workspacetest.ServeSelf(m, serveEnv, main) }

// The standalone binary speaks the harness handshake, waits for Configure
// and reads inside the workspace only; killing it leaves nothing behind.
func TestServe(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	workspacetest.CheckServe(t, serveEnv, "read_file", ws,
		map[string]string{"path": "a.txt"}, map[string]string{"path": "../etc/passwd"},
		func(res sdk.Result) {
			if res.Err != nil || res.Content != "     1\thello\n" {
				t.Fatalf("read: %q %+v", res.Content, res.Err)
			}
		})
}
