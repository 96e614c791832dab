package workspacetest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/internal/testkit"
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

// ServeSelf is the TestMain of a file tool program's tests: the test
// binary doubles as the plugin, running main instead of the tests when it
// is started with env=1 (CheckServe starts it so).
func ServeSelf(m *testing.M, env string, main func()) {
	if os.Getenv(env) == "1" {
		main()
		os.Exit(0)
	}
	testkit.Main(m)
}

// CheckServe checks a file tool program as the harness runs it: the test
// binary started with env=1 speaks the harness handshake; the tool named
// name answers args "not configured" before Configure; after Configure
// with the workspace ws, check gets the answer to args and escape fails
// with path_escape; killing the process leaves nothing behind.
func CheckServe(t *testing.T, env, name, ws string, args, escape any, check func(sdk.Result)) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env+"=1")
	tool, client := Start(t, cmd)
	if res := Call(t, tool, name, args); res.Err == nil || res.Err.Kind != sdk.KindInternal || !strings.Contains(res.Err.Message, "not configured") {
		t.Fatalf("before Configure: %+v", res.Err)
	}
	if err := tool.Configure(context.Background(), sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	check(Call(t, tool, name, args))
	if res := Call(t, tool, name, escape); res.Err == nil || res.Err.Kind != sdk.KindPathEscape {
		t.Fatalf("escape: %+v", res.Err)
	}
	client.Kill()
	if !client.Exited() {
		t.Fatal("the plugin process is still running")
	}
}
