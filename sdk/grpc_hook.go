package sdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-agent/harness/sdk/proto/hookv1"
)

// HookGRPCPlugin binds a [Hook] to go-plugin; hosts get a *HookClient from it.
type HookGRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Hook
}

// GRPCServer implements plugin.GRPCPlugin.
func (p *HookGRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	hookv1.RegisterHookServer(s, &hookServer{impl: p.Impl})
	return nil
}

// GRPCClient implements plugin.GRPCPlugin.
func (p *HookGRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &HookClient{client: hookv1.NewHookClient(c)}, nil
}

type hookServer struct {
	hookv1.UnimplementedHookServer
	impl Hook
}

func (s *hookServer) Describe(ctx context.Context, _ *hookv1.Describe_Request) (*hookv1.Describe_Response, error) {
	phases, err := s.impl.Phases(ctx)
	if err != nil {
		return nil, err
	}
	return &hookv1.Describe_Response{Phases: phases}, nil
}

func (s *hookServer) Handle(ctx context.Context, req *hookv1.Handle_Request) (*hookv1.Handle_Response, error) {
	v, err := s.impl.Handle(ctx, HookEvent{
		Phase: req.Phase, SessionID: req.SessionId, Agent: req.Agent, CallID: req.CallId, Tool: req.Tool,
		Arguments: req.ArgumentsJson, ActionKind: req.ActionKind, Summary: req.Summary,
		Result: req.ResultContent, ResultErr: errorFromProto(req.ResultError), Model: req.Model,
		Stage: req.Stage, Provider: req.Provider, Fallback: int(req.Fallback), Message: req.MessageJson,
		Usage: usageFromProto(req.Usage),
	})
	if err != nil {
		return nil, err
	}
	return &hookv1.Handle_Response{Decision: hookv1.Decision(v.Decision), Reason: v.Reason, Metadata: v.Metadata}, nil
}

// HookClient is the host side of a hook plugin connection. It implements [Hook].
type HookClient struct {
	client hookv1.HookClient
}

var _ Hook = (*HookClient)(nil)

// Phases implements Hook.
func (c *HookClient) Phases(ctx context.Context) ([]string, error) {
	resp, err := c.client.Describe(ctx, &hookv1.Describe_Request{})
	if err != nil {
		return nil, err
	}
	return resp.Phases, nil
}

// Handle implements Hook.
func (c *HookClient) Handle(ctx context.Context, ev HookEvent) (HookVerdict, error) {
	resp, err := c.client.Handle(ctx, &hookv1.Handle_Request{
		Phase: ev.Phase, SessionId: ev.SessionID, Agent: ev.Agent, CallId: ev.CallID, Tool: ev.Tool,
		ArgumentsJson: ev.Arguments, ActionKind: ev.ActionKind, Summary: ev.Summary,
		ResultContent: ev.Result, ResultError: errorToProto(ev.ResultErr), Model: ev.Model,
		Stage: ev.Stage, Provider: ev.Provider, Fallback: int32(ev.Fallback), MessageJson: ev.Message,
		Usage: usageToProto(ev.Usage),
	})
	if err != nil {
		return HookVerdict{}, err
	}
	return HookVerdict{Decision: Decision(resp.Decision), Reason: resp.Reason, Metadata: resp.Metadata}, nil
}
