// Package sdktest is the test kit for plugin authors: it connects a plugin
// implementation to its host-side client in-process, over a real gRPC
// connection (go-plugin's TestPluginGRPCConn), so a plugin's tests exercise
// the same conversion code the harness uses.
package sdktest

import (
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/sdk"
)

// ConnectTool serves impl in-process and returns the host-side client.
func ConnectTool(t testing.TB, impl sdk.ToolPlugin) *sdk.ToolClient {
	return dispense[*sdk.ToolClient](t, sdk.PluginTool, &sdk.ToolGRPCPlugin{Impl: impl})
}

// ConnectProvider serves impl in-process and returns the host-side client.
func ConnectProvider(t testing.TB, impl sdk.Provider) *sdk.ProviderClient {
	return dispense[*sdk.ProviderClient](t, sdk.PluginProvider, &sdk.ProviderGRPCPlugin{Impl: impl})
}

// ConnectHook serves impl in-process and returns the host-side client.
func ConnectHook(t testing.TB, impl sdk.Hook) *sdk.HookClient {
	return dispense[*sdk.HookClient](t, sdk.PluginHook, &sdk.HookGRPCPlugin{Impl: impl})
}

func dispense[C any](t testing.TB, kind string, p plugin.Plugin) C {
	t.Helper()
	client, server := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{kind: p})
	t.Cleanup(func() {
		// Stop the server first: Close's shutdown RPC would otherwise stop
		// it a second time concurrently.
		server.Stop()
		client.Close()
	})
	raw, err := client.Dispense(kind)
	if err != nil {
		t.Fatalf("dispense %s plugin: %v", kind, err)
	}
	return raw.(C)
}
