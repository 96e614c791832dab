package readfile

import (
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
	"github.com/harness-agent/harness/sdk"
)

// connect serves a fresh read_file plugin over gRPC, configured with ws.
func connect(t testing.TB, ws string) *sdk.ToolClient {
	t.Helper()
	return workspacetest.Connect(t, New(), sdk.PluginConfig{Workspace: ws})
}

// call runs read_file with args (a JSON-encodable value); a failed call
// comes back as Result.Err.
func call(t testing.TB, tool sdk.ToolPlugin, args any) sdk.Result {
	t.Helper()
	return workspacetest.Call(t, tool, toolName, args)
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		testkit.WriteFile(t, filepath.Join(dir, name), content)
	}
}

type obj = map[string]any
