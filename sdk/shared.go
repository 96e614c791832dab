package sdk

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/harness-agent/harness/sdk/proto/providerv1"
	"github.com/harness-agent/harness/sdk/proto/toolv1"
)

// A shared process serves several plugins at once: the harness binary
// runs the built-in plugins that hold no secret in one process rather than
// one process each. Every call to it names its plugin in two gRPC metadata
// entries; the process makes the plugin on the first call that names it
// and keeps it, with its own configuration, for the process's life. A
// process serving one plugin ([ServeTool], [ServeProvider]) never reads
// them. Plugin authors do not use this: it is how the harness binary
// serves its own built-ins.
const (
	// MetadataPlugin names the plugin a call is for: the host's name of it
	// (a built-in's name, or "provider.NAME" for a provider block).
	MetadataPlugin = "harness-plugin"
	// MetadataServes names the built-in the plugin is an instance of.
	MetadataServes = "harness-serves"
)

// SharedSet makes the plugins a shared process serves, by built-in name.
// A func returns nil for a name it does not serve; a nil func serves none.
type SharedSet struct {
	Tool     func(builtin string) ToolPlugin
	Provider func(builtin string) Provider
}

// ServeShared serves the plugins of set, each made on first use, until
// the host disconnects.
func ServeShared(set SharedSet) {
	serveSet(sharedPlugins(set))
}

// sharedPlugins is the plugin set of a shared process: a tool and a
// provider service that route each call to the plugin it names.
func sharedPlugins(set SharedSet) plugin.PluginSet {
	return plugin.PluginSet{
		PluginTool: &sharedGRPCPlugin{register: func(s *grpc.Server) {
			toolv1.RegisterToolServer(s, sharedTools{in: newInstances(func(b string) *toolServer {
				if set.Tool == nil {
					return nil
				}
				if p := set.Tool(b); p != nil {
					return newToolServer(p)
				}
				return nil
			})})
		}},
		PluginProvider: &sharedGRPCPlugin{register: func(s *grpc.Server) {
			providerv1.RegisterProviderServer(s, sharedProviders{in: newInstances(func(b string) *providerServer {
				if set.Provider == nil {
					return nil
				}
				if p := set.Provider(b); p != nil {
					return newProviderServer(p)
				}
				return nil
			})})
		}},
	}
}

// NewSharedToolClient is the host side of one tool plugin of a shared
// process, over the process's connection.
func NewSharedToolClient(cc grpc.ClientConnInterface, name, serves string) *ToolClient {
	return &ToolClient{client: toolv1.NewToolClient(routed(cc, name, serves))}
}

// NewSharedProviderClient is the host side of one provider plugin of a
// shared process, over the process's connection.
func NewSharedProviderClient(cc grpc.ClientConnInterface, name, serves string) *ProviderClient {
	return &ProviderClient{client: providerv1.NewProviderClient(routed(cc, name, serves))}
}

// sharedGRPCPlugin registers a shared process's service; it has no client
// side (hosts make one per plugin with NewShared*Client).
type sharedGRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	register func(*grpc.Server)
}

func (p *sharedGRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	p.register(s)
	return nil
}

func (p *sharedGRPCPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("a shared plugin process has a client per plugin: use NewSharedToolClient or NewSharedProviderClient")
}

// routedConn adds a plugin's metadata to every call on a shared process's
// connection.
type routedConn struct {
	cc grpc.ClientConnInterface
	kv [4]string
}

func routed(cc grpc.ClientConnInterface, name, serves string) grpc.ClientConnInterface {
	return &routedConn{cc: cc, kv: [4]string{MetadataPlugin, name, MetadataServes, serves}}
}

func (r *routedConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	return r.cc.Invoke(metadata.AppendToOutgoingContext(ctx, r.kv[:]...), method, args, reply, opts...)
}

func (r *routedConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	return r.cc.NewStream(metadata.AppendToOutgoingContext(ctx, r.kv[:]...), desc, method, opts...)
}

// instances are the plugins of one kind a shared process has made, by the
// name calls give them.
type instances[S any] struct {
	make func(builtin string) *S

	mu     sync.Mutex
	byName map[string]instance[S]
}

type instance[S any] struct {
	serves string
	server *S
}

func newInstances[S any](make func(builtin string) *S) *instances[S] {
	return &instances[S]{make: make, byName: map[string]instance[S]{}}
}

// get returns the plugin ctx's call names, making it on first use. A call
// must name the same built-in as the first call of its plugin did.
func (in *instances[S]) get(ctx context.Context) (*S, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	name, serves := first(md, MetadataPlugin), first(md, MetadataServes)
	if name == "" || serves == "" {
		return nil, status.Errorf(codes.InvalidArgument, "a call to a shared plugin process names its plugin in the %q and %q metadata", MetadataPlugin, MetadataServes)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if i, ok := in.byName[name]; ok {
		if i.serves != serves {
			return nil, status.Errorf(codes.InvalidArgument, "plugin %q of this process serves %q, not %q", name, i.serves, serves)
		}
		return i.server, nil
	}
	s := in.make(serves)
	if s == nil {
		return nil, status.Errorf(codes.NotFound, "this process serves no built-in plugin named %q", serves)
	}
	in.byName[name] = instance[S]{serves: serves, server: s}
	return s, nil
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// route runs a unary call on the plugin ctx names.
func route[S, Q, R any](ctx context.Context, in *instances[S], req Q, call func(*S, context.Context, Q) (R, error)) (R, error) {
	s, err := in.get(ctx)
	if err != nil {
		var zero R
		return zero, err
	}
	return call(s, ctx, req)
}

// sharedTools routes each tool call to the plugin it names.
type sharedTools struct {
	toolv1.UnimplementedToolServer
	in *instances[toolServer]
}

func (s sharedTools) Describe(ctx context.Context, req *toolv1.Describe_Request) (*toolv1.Describe_Response, error) {
	return route(ctx, s.in, req, (*toolServer).Describe)
}

func (s sharedTools) Configure(ctx context.Context, req *toolv1.Configure_Request) (*toolv1.Configure_Response, error) {
	return route(ctx, s.in, req, (*toolServer).Configure)
}

func (s sharedTools) Execute(req *toolv1.Execute_Request, stream grpc.ServerStreamingServer[toolv1.Execute_Event]) error {
	t, err := s.in.get(stream.Context())
	if err != nil {
		return err
	}
	return t.Execute(req, stream)
}

// sharedProviders routes each provider call to the plugin it names.
type sharedProviders struct {
	providerv1.UnimplementedProviderServer
	in *instances[providerServer]
}

func (s sharedProviders) Configure(ctx context.Context, req *providerv1.Configure_Request) (*providerv1.Configure_Response, error) {
	return route(ctx, s.in, req, (*providerServer).Configure)
}

func (s sharedProviders) Describe(ctx context.Context, req *providerv1.Describe_Request) (*providerv1.Describe_Response, error) {
	return route(ctx, s.in, req, (*providerServer).Describe)
}

func (s sharedProviders) Models(ctx context.Context, req *providerv1.Models_Request) (*providerv1.Models_Response, error) {
	return route(ctx, s.in, req, (*providerServer).Models)
}

func (s sharedProviders) PrepareCall(ctx context.Context, req *providerv1.PrepareCall_Request) (*providerv1.PrepareCall_Response, error) {
	return route(ctx, s.in, req, (*providerServer).PrepareCall)
}

func (s sharedProviders) Stream(req *providerv1.Stream_Request, stream grpc.ServerStreamingServer[providerv1.StreamChunk]) error {
	p, err := s.in.get(stream.Context())
	if err != nil {
		return err
	}
	return p.Stream(req, stream)
}
