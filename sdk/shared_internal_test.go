package sdk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harness-agent/harness/sdk/proto/toolv1"
)

// workspaceTools is a tool plugin whose one tool answers with the
// workspace of its configuration.
func workspaceTools() ToolPlugin {
	var workspace string
	return &ToolSet{
		Name:        "ws",
		OnConfigure: func(_ context.Context, cfg PluginConfig) error { workspace = cfg.Workspace; return nil },
		Tools: []Tool{{
			Spec: ToolSpec{Name: "workspace", InputSchema: json.RawMessage(`{"type":"object"}`)},
			Run: func(context.Context, Call, Progress) (Result, error) {
				return Result{Content: workspace}, nil
			},
		}},
	}
}

type oneModel struct{ id string }

func (oneModel) Configure(context.Context, json.RawMessage) error { return nil }
func (p oneModel) Models(context.Context) ([]ModelInfo, error) {
	return []ModelInfo{{ID: p.id}}, nil
}
func (oneModel) Stream(context.Context, StreamRequest, func(StreamChunk) error) error { return nil }

func sharedConn(t *testing.T) *plugin.GRPCClient {
	t.Helper()
	set := SharedSet{
		Tool: func(b string) ToolPlugin {
			if b == "ws" {
				return workspaceTools()
			}
			return nil
		},
		Provider: func(b string) Provider {
			if b == "models" {
				return oneModel{id: "m1"}
			}
			return nil
		},
	}
	client, server := plugin.TestPluginGRPCConn(t, false, sharedPlugins(set))
	t.Cleanup(func() {
		server.Stop()
		client.Close()
	})
	return client
}

// Two plugins of one built-in in a shared process keep their own
// configuration; a provider plugin lives beside them.
func TestSharedProcessRoutesEachCallToItsPlugin(t *testing.T) {
	conn := sharedConn(t).Conn
	ctx := context.Background()
	x, y := NewSharedToolClient(conn, "x", "ws"), NewSharedToolClient(conn, "y", "ws")
	for c, ws := range map[*ToolClient]string{x: "/x", y: "/y"} {
		if err := c.Configure(ctx, PluginConfig{Workspace: ws}); err != nil {
			t.Fatal(err)
		}
	}
	for c, want := range map[*ToolClient]string{x: "/x", y: "/y"} {
		res, err := c.Execute(ctx, Call{ID: "1", Tool: "workspace", Arguments: json.RawMessage(`{}`)}, nil)
		if err != nil || res.Content != want {
			t.Errorf("workspace: %q, %v; want %q", res.Content, err, want)
		}
	}
	models, err := NewSharedProviderClient(conn, "provider.p", "models").Models(ctx)
	if err != nil || len(models) != 1 || models[0].ID != "m1" {
		t.Errorf("models through the shared process: %+v, %v", models, err)
	}
}

func TestSharedProcessRefusesCallsItCannotRoute(t *testing.T) {
	conn := sharedConn(t).Conn
	ctx := context.Background()
	if err := NewSharedToolClient(conn, "x", "ws").Configure(ctx, PluginConfig{}); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		client *ToolClient
		code   codes.Code
	}{
		"no metadata":      {&ToolClient{client: toolv1.NewToolClient(conn)}, codes.InvalidArgument},
		"another built-in": {NewSharedToolClient(conn, "x", "other"), codes.InvalidArgument},
		"unknown built-in": {NewSharedToolClient(conn, "z", "nope"), codes.NotFound},
		"provider as tool": {NewSharedToolClient(conn, "p", "models"), codes.NotFound},
	} {
		_, err := tc.client.Describe(ctx)
		if status.Code(err) != tc.code {
			t.Errorf("%s: Describe = %v, want code %v", name, err, tc.code)
		}
	}
}
