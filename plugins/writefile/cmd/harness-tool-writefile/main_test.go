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
const serveEnv = "HARNESS_TEST_SERVE_WRITEFILE"

func TestMain(m *testing.M) { workspacetest.ServeSelf(m, serveEnv, main) }

// The standalone binary speaks the harness handshake, waits for Configure
// and writes inside the workspace only; killing it leaves nothing behind.
func TestServe(t *testing.T) {
	ws := t.TempDir()
	workspacetest.CheckServe(t, serveEnv, "write_file", ws,
		map[string]string{"path": "a.txt", "content": "hello\n"}, map[string]string{"path": "../etc/passwd", "content": "hello\n"},
		func(res sdk.Result) {
			if res.Err != nil || res.Content != `created "a.txt" (1 line, 6 bytes).` {
				t.Fatalf("write: %q %+v", res.Content, res.Err)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(b) != "hello\n" {
				t.Fatalf("file holds %q (%v)", b, err)
			}
		})
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "etc")); err == nil {
		t.Fatal("wrote outside the workspace")
	}
}
