// Command bareplugin is the reference for the provider stream benchmark:
// a go-plugin gRPC provider whose Stream sends canned chunks straight from
// memory, with none of the SDK's handle checks or conversions, no HTTP and
// no SSE. What a harness stream costs per chunk beyond this is the
// harness's own cost.
package main

import (
	"context"
	"strings"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/proto/providerv1"
)

// Deltas is the number of text deltas per stream: like the recorded
// DeepSeek stream the harness benchmark replays (400 deltas and a finish).
const Deltas = 400

type provider struct {
	providerv1.UnimplementedProviderServer
	chunks []*providerv1.StreamChunk
}

func newProvider() *provider {
	p := &provider{}
	add := func(c *providerv1.StreamChunk) { p.chunks = append(p.chunks, c) }
	add(&providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_BlockStart_{BlockStart: &providerv1.StreamChunk_BlockStart{Kind: providerv1.BlockKind_BLOCK_KIND_TEXT}}})
	word := strings.Repeat("x", 6)
	for range Deltas {
		add(&providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_BlockDelta_{BlockDelta: &providerv1.StreamChunk_BlockDelta{Text: word}}})
	}
	add(&providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_BlockEnd_{BlockEnd: &providerv1.StreamChunk_BlockEnd{}}})
	add(&providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_Finish_{Finish: &providerv1.StreamChunk_Finish{Reason: "stop",
		Usage: &providerv1.Usage{PromptTokens: 10, CompletionTokens: Deltas}}}})
	return p
}

func (p *provider) Stream(_ *providerv1.Stream_Request, stream grpc.ServerStreamingServer[providerv1.StreamChunk]) error {
	for _, c := range p.chunks {
		if err := stream.Send(c); err != nil {
			return err
		}
	}
	return nil
}

func (p *provider) Configure(context.Context, *providerv1.Configure_Request) (*providerv1.Configure_Response, error) {
	return &providerv1.Configure_Response{}, nil
}

type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	providerv1.RegisterProviderServer(s, newProvider())
	return nil
}

func (grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{sdk.ProtocolVersion: {sdk.PluginProvider: grpcPlugin{}}},
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}
