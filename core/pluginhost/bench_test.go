package pluginhost_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/proto/toolv1"
)

var noop = sdk.Call{ID: "b", Tool: "noop", Arguments: json.RawMessage(`{}`)}

// BenchmarkStartToFirstCall: a built-in plugin from nothing to the answer of
// its first call, through the host (lazy start, handshake, dispense, call),
// and its stop. Making the host is not timed: given the binary by path, it
// pins a sealed copy of it (about 12 ms for the test plugin), which a run's
// host does not make, since it serves built-ins from its own image.
func BenchmarkStartToFirstCall(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		h, err := pluginhost.New(pluginhost.Options{SelfExe: testPlugin})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		_ = h.Register(pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
		th, _ := h.Tool("tp")
		if _, err := th.Execute(ctx, noop, nil); err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}

// BenchmarkBareStartToFirstCall is the reference: go-plugin alone starting
// the same binary and making one raw gRPC unary call.
func BenchmarkBareStartToFirstCall(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		cl := bareClient()
		rpc, err := cl.Client()
		if err != nil {
			b.Fatal(err)
		}
		conn := rpc.(*plugin.GRPCClient).Conn
		if _, err := toolv1.NewToolClient(conn).Describe(ctx, &toolv1.Describe_Request{}); err != nil {
			b.Fatal(err)
		}
		cl.Kill()
	}
}

// BenchmarkNoopCallThroughHost: a no-op tool call on a running plugin
// through the host's handle (crash detection, config replay check).
func BenchmarkNoopCallThroughHost(b *testing.B) {
	ctx := context.Background()
	h, err := pluginhost.New(pluginhost.Options{SelfExe: testPlugin})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	_ = h.Register(pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
	th, _ := h.Tool("tp")
	if _, err := th.Execute(ctx, noop, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := th.Execute(ctx, noop, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareUnaryCall is the reference: a raw gRPC unary call to the same
// plugin over go-plugin's connection.
func BenchmarkBareUnaryCall(b *testing.B) {
	ctx := context.Background()
	cl := bareClient()
	defer cl.Kill()
	rpc, err := cl.Client()
	if err != nil {
		b.Fatal(err)
	}
	tc := toolv1.NewToolClient(rpc.(*plugin.GRPCClient).Conn)
	for b.Loop() {
		if _, err := tc.Describe(ctx, &toolv1.Describe_Request{}); err != nil {
			b.Fatal(err)
		}
	}
}

func bareClient() *plugin.Client {
	return plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.HostPluginSets(),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Cmd:              exec.Command(testPlugin),
	})
}
