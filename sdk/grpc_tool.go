package sdk

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-agent/harness/sdk/proto/toolv1"
)

// ToolGRPCPlugin binds a [ToolPlugin] to go-plugin. Plugin authors do not
// use it directly ([ServeTool] does); hosts get a *ToolClient from it.
type ToolGRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl ToolPlugin
}

// GRPCServer implements plugin.GRPCPlugin.
func (p *ToolGRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	toolv1.RegisterToolServer(s, newToolServer(p.Impl))
	return nil
}

// GRPCClient implements plugin.GRPCPlugin.
func (p *ToolGRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &ToolClient{client: toolv1.NewToolClient(c)}, nil
}

func newToolServer(impl ToolPlugin) *toolServer {
	return &toolServer{impl: impl, settled: make(chan struct{})}
}

type toolServer struct {
	toolv1.UnimplementedToolServer
	impl ToolPlugin

	// The outcome of the host's numbered Configure calls, which an Execute
	// naming one (after_configure) waits for: gRPC runs the handlers of
	// two calls concurrently, so a pipelined Execute may start first.
	cfgMu   sync.Mutex
	lastSeq uint64        // highest seq of a completed Configure
	lastErr *Error        // its failure, nil when it succeeded
	settled chan struct{} // closed (and replaced) when lastSeq grows
}

func (s *toolServer) Describe(ctx context.Context, _ *toolv1.Describe_Request) (*toolv1.Describe_Response, error) {
	info, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, err
	}
	resp := &toolv1.Describe_Response{PluginName: info.Name, PluginVersion: info.Version, ConfigSchemaJson: info.ConfigSchema, OrderedConfigure: true}
	for _, t := range info.Tools {
		resp.Tools = append(resp.Tools, &toolv1.ToolSpec{
			Name:            t.Name,
			Description:     t.Description,
			InputSchemaJson: t.InputSchema,
			Capabilities:    &toolv1.Capabilities{Reads: t.Reads, Writes: t.Writes, Executes: t.Executes, Network: t.Network},
		})
	}
	return resp, nil
}

func (s *toolServer) Configure(ctx context.Context, req *toolv1.Configure_Request) (*toolv1.Configure_Response, error) {
	cfg := PluginConfig{Workspace: req.Workspace, Config: req.ConfigJson, Protected: req.ProtectedPaths}
	if len(cfg.Config) == 0 {
		cfg.Config = []byte("{}")
	}
	var failed *Error
	if err := s.impl.Configure(ctx, cfg); err != nil {
		failed = AsError(err)
	}
	if req.Seq != 0 {
		s.settle(req.Seq, failed)
	}
	if failed != nil {
		return &toolv1.Configure_Response{Error: errorToProto(failed)}, nil
	}
	return &toolv1.Configure_Response{}, nil
}

// settle records that the Configure numbered seq completed.
func (s *toolServer) settle(seq uint64, failed *Error) {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if seq <= s.lastSeq {
		return
	}
	s.lastSeq, s.lastErr = seq, failed
	close(s.settled)
	s.settled = make(chan struct{})
}

// awaitConfigure waits until the Configure numbered seq (or a later one)
// has completed and returns its failure, or the end of ctx. Seq 0 (an
// Execute sent after its Configure was answered) does not wait.
func (s *toolServer) awaitConfigure(ctx context.Context, seq uint64) error {
	for seq != 0 {
		s.cfgMu.Lock()
		last, failed, settled := s.lastSeq, s.lastErr, s.settled
		s.cfgMu.Unlock()
		if last >= seq {
			if failed != nil {
				return failed
			}
			return nil
		}
		select {
		case <-settled:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (s *toolServer) Execute(req *toolv1.Execute_Request, stream grpc.ServerStreamingServer[toolv1.Execute_Event]) error {
	ctx := stream.Context()
	if req.DeadlineUnixMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.UnixMilli(req.DeadlineUnixMs))
		defer cancel()
	}
	progress := func(name, text string) {
		// A failed send means the host is gone; the call's context ends too.
		_ = stream.Send(&toolv1.Execute_Event{Event: &toolv1.Execute_Event_Progress{Progress: &toolv1.Execute_Progress{Stream: name, Text: text}}})
	}
	var res Result
	if err := s.awaitConfigure(ctx, req.AfterConfigure); err != nil {
		// Never run unconfigured: the host reports the Configure's own
		// failure, this answer only keeps the stream well formed.
		res = Result{Err: AsError(err)}
	} else {
		res = s.execute(ctx, Call{ID: req.CallId, Tool: req.Tool, Arguments: req.ArgumentsJson}, progress)
	}
	if res.Err != nil && res.Content == "" {
		res.Content = res.Err.Error()
	}
	return stream.Send(&toolv1.Execute_Event{Event: &toolv1.Execute_Event_Result{Result: &toolv1.Execute_Result{
		Content:      res.Content,
		Presentation: presentationToProto(res.Presentation),
		Error:        errorToProto(res.Err),
	}}})
}

// execute runs the tool, turning an error return or a panic of the tool's
// own goroutine into a structured failure.
func (s *toolServer) execute(ctx context.Context, call Call, progress Progress) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			Logger().Error("tool panicked", "tool", call.Tool, "panic", fmt.Sprint(r))
			res = Result{Err: Errorf(KindInternal, "%s panicked: %v", call.Tool, r)}
		}
	}()
	res, err := s.impl.Execute(ctx, call, progress)
	if err != nil {
		res.Err = AsError(err)
	}
	return res
}

// ToolClient is the host side of a tool plugin connection. It implements
// [ToolPlugin], so hosts treat local and remote tools alike.
type ToolClient struct {
	client  toolv1.ToolClient
	ordered atomic.Bool // a Describe said the plugin orders Execute after Configure
}

var _ ToolPlugin = (*ToolClient)(nil)

// Describe implements ToolPlugin.
func (c *ToolClient) Describe(ctx context.Context) (PluginInfo, error) {
	resp, err := c.client.Describe(ctx, &toolv1.Describe_Request{})
	if err != nil {
		return PluginInfo{}, err
	}
	if resp.OrderedConfigure {
		c.ordered.Store(true)
	}
	info := PluginInfo{Name: resp.PluginName, Version: resp.PluginVersion, ConfigSchema: resp.ConfigSchemaJson}
	for _, t := range resp.Tools {
		caps := t.GetCapabilities()
		info.Tools = append(info.Tools, ToolSpec{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchemaJson,
			Capabilities: Capabilities{Reads: caps.GetReads(), Writes: caps.GetWrites(), Executes: caps.GetExecutes(), Network: caps.GetNetwork()},
		})
	}
	return info, nil
}

// OrdersConfigure reports whether a Describe of this connection said the
// plugin honours ConfigureSeq and ExecuteAfter: a host may then send an
// Execute without waiting for the Configure before it.
func (c *ToolClient) OrdersConfigure() bool { return c.ordered.Load() }

// Configure implements ToolPlugin.
func (c *ToolClient) Configure(ctx context.Context, cfg PluginConfig) error {
	return c.ConfigureSeq(ctx, cfg, 0)
}

// ConfigureSeq is Configure numbered seq (growing from call to call on a
// connection, not necessarily from 1; 0: unnumbered), which an
// ExecuteAfter may name.
func (c *ToolClient) ConfigureSeq(ctx context.Context, cfg PluginConfig, seq uint64) error {
	resp, err := c.client.Configure(ctx, &toolv1.Configure_Request{Workspace: cfg.Workspace, ConfigJson: cfg.Config, ProtectedPaths: cfg.Protected, Seq: seq})
	if err != nil {
		return err
	}
	if e := errorFromProto(resp.Error); e != nil {
		return e
	}
	return nil
}

// Execute implements ToolPlugin. Transport failures are returned as the
// error; a failed call is a Result with Err set.
func (c *ToolClient) Execute(ctx context.Context, call Call, progress Progress) (Result, error) {
	return c.ExecuteAfter(ctx, call, progress, 0)
}

// ExecuteAfter is Execute run by the plugin only once the Configure
// numbered seq has completed (0: at once). Only for a plugin that
// OrdersConfigure, or one known to run this SDK: an older plugin ignores
// seq and may run the call before that Configure.
func (c *ToolClient) ExecuteAfter(ctx context.Context, call Call, progress Progress, seq uint64) (Result, error) {
	req := &toolv1.Execute_Request{CallId: call.ID, Tool: call.Tool, ArgumentsJson: call.Arguments, AfterConfigure: seq}
	if d, ok := ctx.Deadline(); ok {
		req.DeadlineUnixMs = d.UnixMilli()
	}
	stream, err := c.client.Execute(ctx, req)
	if err != nil {
		return Result{}, err
	}
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			return Result{}, fmt.Errorf("tool %s: stream ended without a result", call.Tool)
		}
		if err != nil {
			return Result{}, err
		}
		switch e := ev.Event.(type) {
		case *toolv1.Execute_Event_Progress:
			if progress != nil {
				progress(e.Progress.Stream, e.Progress.Text)
			}
		case *toolv1.Execute_Event_Result:
			return Result{
				Content:      e.Result.Content,
				Presentation: presentationFromProto(e.Result.Presentation),
				Err:          errorFromProto(e.Result.Error),
			}, nil
		}
	}
}
