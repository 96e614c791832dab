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
const serveEnv = "HARNESS_TEST_SERVE_READFILE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		main()
		os.Exit(0)
	}
	testkit.Main(m)
}

// The standalone binary speaks the harness handshake, waits for Configure
// and reads inside the workspace only; killing it leaves nothing behind.
func TestServe(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	tool, client := workspacetest.Start(t, cmd)
	ctx := context.Background()
	run := func(path string) sdk.Result {
		args, _ := json.Marshal(map[string]string{"path": path})
		res, err := tool.Execute(ctx, sdk.Call{ID: "c", Tool: "read_file", Arguments: args}, nil)
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
	if res := run("a.txt"); res.Err != nil || res.Content != "     1\thello\n" {
		t.Fatalf("read: %q %+v", res.Content, res.Err)
	}
	if res := run("../etc/passwd"); res.Err == nil || res.Err.Kind != sdk.KindPathEscape {
		t.Fatalf("escape: %+v", res.Err)
	}
	client.Kill()
	if !client.Exited() {
		t.Fatal("the plugin process is still running")
	}
}
