package script_test

import (
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/sdk"
)

// connectProvider is sdktest.ConnectProvider with its cleanup in a race-free
// order: sdktest closes the client first, whose Shutdown RPC stops the server
// in a server goroutine while the cleanup stops it again (a data race inside
// go-plugin's GRPCServer.Stop that -race reports). Stopping the server before
// closing the client avoids the concurrent Stop. Switch back to sdktest once
// its cleanup order is fixed.
func connectProvider(t testing.TB, impl sdk.Provider) *sdk.ProviderClient {
	t.Helper()
	client, server := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{sdk.KindProvider: &sdk.ProviderGRPCPlugin{Impl: impl}})
	t.Cleanup(func() {
		server.Stop()
		client.Close()
	})
	raw, err := client.Dispense(sdk.KindProvider)
	if err != nil {
		t.Fatalf("dispense provider plugin: %v", err)
	}
	return raw.(*sdk.ProviderClient)
}
