package sdktest

import (
	"os/exec"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/sdk"
)

// StartProvider runs a provider plugin executable the way the harness
// does (go-plugin with the harness handshake, gRPC only, raised message
// limits) and returns the host-side client. The process is killed when
// the test ends.
func StartProvider(t testing.TB, path string) *sdk.ProviderClient {
	t.Helper()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.HostPluginSets(),
		Cmd:              exec.Command(path),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Logger:           hclog.NewNullLogger(),
	})
	t.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("starting the plugin %s: %v", path, err)
	}
	raw, err := rpc.Dispense(sdk.PluginProvider)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	return raw.(*sdk.ProviderClient)
}
