package writefile

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// connect serves a fresh write_file plugin over gRPC, configured with ws.
func connect(t testing.TB, ws string) *sdk.ToolClient {
	t.Helper()
	return connectWith(t, sdk.PluginConfig{Workspace: ws})
}

// connectWith serves a fresh write plugin over gRPC, configured with cfg.
func connectWith(t testing.TB, cfg sdk.PluginConfig) *sdk.ToolClient {
	t.Helper()
	client := sdktest.ConnectTool(t, New())
	if err := client.Configure(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return client
}

// call runs write_file with args (a JSON-encodable value). A failed call
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

type obj = map[string]any
