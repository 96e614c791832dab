package sdk

import (
	"math"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// ProtocolVersion is the major version of the plugin protocol (sdk/proto/*v1).
const ProtocolVersion = 1

// Plugin set keys: the kind of service a plugin serves. (The Kind*
// constants of errors.go are error kinds, a different thing.)
const (
	PluginTool     = "tool"
	PluginProvider = "provider"
	PluginHook     = "hook"
)

// Handshake is the fixed go-plugin handshake of every harness plugin. The
// cookie never changes; ProtocolVersion selects the protocol.
var Handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "HARNESS_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "9c1b6f0e4d2a4c7e8b3f5a61e0d27c94",
}

// MaxMessageSize is the gRPC message size limit on both sides: files and
// tool output exceed gRPC's 4 MiB default.
const MaxMessageSize = 256 << 20

// streamWorkers is how many goroutines of a plugin's gRPC server wait for
// a stream: a provider serves one stream at a time, a tool process a few
// concurrent read-only calls.
const streamWorkers = 4

// windowSize is the HTTP/2 flow-control window of each stream and of each
// connection, on both sides. A set window turns off gRPC's bandwidth
// estimation, which answers data with a PING, and then a window update,
// each waking the other process: on a local socket, for small calls, two
// wakeups more than the call itself. 4 MiB lets a large result stream
// without waiting for window updates (gRPC's default starts at 64 KiB).
const windowSize = 4 << 20

// HostPluginSets returns the plugin sets a host passes to go-plugin's
// ClientConfig.VersionedPlugins.
func HostPluginSets() map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		ProtocolVersion: {
			PluginTool:     &ToolGRPCPlugin{},
			PluginProvider: &ProviderGRPCPlugin{},
			PluginHook:     &HookGRPCPlugin{},
		},
	}
}

// GRPCDialOptions are the host's dial options: raised call size limits,
// a codec that does not clear the buffers it fills (see wireCodec), and
// set flow-control windows (see windowSize).
func GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(MaxMessageSize),
			grpc.MaxCallSendMsgSize(MaxMessageSize),
			grpc.ForceCodecV2(wireCodec{}), // a call may still force its own (a provider's Stream: requestCodec)
		),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
	}
}

func grpcServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts,
		grpc.MaxRecvMsgSize(MaxMessageSize),
		grpc.MaxSendMsgSize(MaxMessageSize),
		grpc.MaxConcurrentStreams(math.MaxUint32),
		// Streams run on goroutines that outlive them, which keep the
		// stack a call grew (a new goroutine per stream copied its stack
		// two or three times); a stream beyond these gets a goroutine of
		// its own.
		grpc.NumStreamWorkers(streamWorkers),
		grpc.ForceServerCodecV2(wireCodec{}),
		grpc.InitialWindowSize(windowSize),
		grpc.InitialConnWindowSize(windowSize),
	)
	return grpc.NewServer(opts...)
}
