package writefile

import (
	"testing"

	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
	"github.com/harness-agent/harness/sdk"
)

// connect serves a fresh write_file plugin over gRPC, configured with ws.
func connect(t testing.TB, ws string) *sdk.ToolClient {
	t.Helper()
	return connectWith(t, sdk.PluginConfig{Workspace: ws})
}

// connectWith serves a fresh write plugin over gRPC, configured with cfg.
func connectWith(t testing.TB, cfg sdk.PluginConfig) *sdk.ToolClient {
	t.Helper()
	return workspacetest.Connect(t, New(), cfg)
}

// call runs write_file with args (a JSON-encodable value); a failed call
// comes back as Result.Err.
func call(t testing.TB, tool sdk.ToolPlugin, args any) sdk.Result {
	t.Helper()
	return workspacetest.Call(t, tool, toolName, args)
}

type obj = map[string]any
