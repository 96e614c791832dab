package main

import (
	"context"
	"math"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/proto/commonv1"
	"github.com/harness-agent/harness/sdk/proto/toolv1"
)

// serveUnordered serves the tool protocol as a plugin built before
// pipelined Configure does: its Describe does not report
// ordered_configure, and it knows nothing of Configure seq numbers.
func serveUnordered() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{sdk.ProtocolVersion: {sdk.PluginTool: &unorderedPlugin{}}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, grpc.MaxConcurrentStreams(math.MaxUint32))...)
		},
	})
}

type unorderedPlugin struct{ plugin.NetRPCUnsupportedPlugin }

func (*unorderedPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	toolv1.RegisterToolServer(s, &unorderedServer{})
	return nil
}

func (*unorderedPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

type unorderedServer struct {
	toolv1.UnimplementedToolServer
	workspace string
}

func (*unorderedServer) Describe(context.Context, *toolv1.Describe_Request) (*toolv1.Describe_Response, error) {
	return &toolv1.Describe_Response{PluginName: "unordered", Tools: []*toolv1.ToolSpec{{Name: "workspace", InputSchemaJson: []byte(`{"type":"object"}`)}}}, nil
}

func (s *unorderedServer) Configure(_ context.Context, req *toolv1.Configure_Request) (*toolv1.Configure_Response, error) {
	if refused(req.ConfigJson) {
		return &toolv1.Configure_Response{Error: &commonv1.Error{Kind: string(errRefused.Kind), Message: errRefused.Message}}, nil
	}
	s.workspace = req.Workspace
	return &toolv1.Configure_Response{}, nil
}

func (s *unorderedServer) Execute(req *toolv1.Execute_Request, stream grpc.ServerStreamingServer[toolv1.Execute_Event]) error {
	if req.AfterConfigure != 0 {
		// Such a plugin would ignore the field and might run first: the
		// host must never have sent it.
		return stream.Send(&toolv1.Execute_Event{Event: &toolv1.Execute_Event_Result{Result: &toolv1.Execute_Result{
			Content: "pipelined", Error: &commonv1.Error{Kind: string(sdk.KindInternal), Message: "the host sent after_configure to a plugin without ordered_configure"}}}})
	}
	return stream.Send(&toolv1.Execute_Event{Event: &toolv1.Execute_Event_Result{Result: &toolv1.Execute_Result{Content: s.workspace}}})
}
