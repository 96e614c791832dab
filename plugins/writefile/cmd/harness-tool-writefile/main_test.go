package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"

	"github.com/harness-agent/harness/sdk"
)

// The test binary doubles as the plugin: started with serveEnv set, it
// runs main instead of the tests.
const serveEnv = "HARNESS_TEST_SERVE_WRITEFILE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		main()
		os.Exit(0)
	}
	testkit.Main(m)
}

// The standalone binary speaks the harness handshake, waits for Configure
// and writes inside the workspace only; killing it leaves nothing behind.
func TestServe(t *testing.T) {
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	tool, client := workspacetest.Start(t, cmd)
	ctx := context.Background()
	run := func(path string) sdk.Result {
		args, _ := json.Marshal(map[string]string{"path": path, "content": "hello\n"})
		res, err := tool.Execute(ctx, sdk.Call{ID: "c", Tool: "write_file", Arguments: args}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	if res := run("a.txt"); res.Err == nil || res.Err.Kind != sdk.KindInternal || !strings.Contains(res.Err.Message, "not configured") {
		t.Fatalf("before Configure: %+v", res.Err)
	}
	if err := tool.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	if res := run("a.txt"); res.Err != nil || res.Content != `created "a.txt" (1 line, 6 bytes).` {
		t.Fatalf("write: %q %+v", res.Content, res.Err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("file holds %q (%v)", b, err)
	}
	if res := run("../etc/passwd"); res.Err == nil || res.Err.Kind != sdk.KindPathEscape {
		t.Fatalf("escape: %+v", res.Err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "etc")); err == nil {
		t.Fatal("wrote outside the workspace")
	}
	client.Kill()
	if !client.Exited() {
		t.Fatal("the plugin process is still running")
	}
}
