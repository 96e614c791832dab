package readfile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// connect serves a fresh read_file plugin over gRPC, configured with ws.
func connect(t testing.TB, ws string) *sdk.ToolClient {
	t.Helper()
	client := sdktest.ConnectTool(t, New())
	if err := client.Configure(context.Background(), sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return client
}

// call runs read_file with args (a JSON-encodable value). A failed call
// comes back as Result.Err, over gRPC and in-process alike.
func call(t testing.TB, tool sdk.ToolPlugin, args any) sdk.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Execute(context.Background(), sdk.Call{ID: "c1", Tool: toolName, Arguments: raw}, nil)
	if err != nil {
		if _, remote := tool.(*sdk.ToolClient); remote {
			t.Fatal(err)
		}
		res.Err = sdk.AsError(err)
	}
	return res
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type obj = map[string]any
