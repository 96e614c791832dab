package workspacetest

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// Connect serves impl in-process over gRPC (sdktest.ConnectTool) and
// configures it with cfg.
func Connect(tb testing.TB, impl sdk.ToolPlugin, cfg sdk.PluginConfig) *sdk.ToolClient {
	tb.Helper()
	client := sdktest.ConnectTool(tb, impl)
	if err := client.Configure(context.Background(), cfg); err != nil {
		tb.Fatal(err)
	}
	return client
}

// Call runs the tool named name of tool with args (a JSON-encodable
// value). A failed call comes back as Result.Err, over gRPC and in-process
// alike; a transport failure fails the test.
func Call(tb testing.TB, tool sdk.ToolPlugin, name string, args any) sdk.Result {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := tool.Execute(context.Background(), sdk.Call{ID: "c1", Tool: name, Arguments: raw}, nil)
	if err != nil {
		if _, remote := tool.(*sdk.ToolClient); remote {
			tb.Fatal(err)
		}
		res.Err = sdk.AsError(err)
	}
	return res
}

// Start runs a tool plugin program the way the harness does (go-plugin
// with the harness handshake, gRPC only) and returns its client and the
// go-plugin client that owns the process, killed when the test ends.
func Start(tb testing.TB, cmd *exec.Cmd) (*sdk.ToolClient, *plugin.Client) {
	tb.Helper()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.HostPluginSets(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Logger:           hclog.NewNullLogger(),
	})
	tb.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := rpc.Dispense(sdk.PluginTool)
	if err != nil {
		tb.Fatal(err)
	}
	return raw.(*sdk.ToolClient), client
}
