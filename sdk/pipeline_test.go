package sdk_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// gatedTools holds every Configure until release is closed (configuring
// says one arrived) and refuses a workspace named "refuse"; its one tool
// returns the configured workspace and counts its runs.
type gatedTools struct {
	configuring chan struct{}
	release     chan struct{}
	runs        atomic.Int32
	workspace   atomic.Value
}

func newGated() *gatedTools {
	return &gatedTools{configuring: make(chan struct{}, 8), release: make(chan struct{})}
}

func (g *gatedTools) set() *sdk.ToolSet {
	return &sdk.ToolSet{
		Name: "gated",
		OnConfigure: func(_ context.Context, cfg sdk.PluginConfig) error {
			g.configuring <- struct{}{}
			<-g.release
			if cfg.Workspace == "refuse" {
				return sdk.Errorf(sdk.KindInvalidArgs, "workspace refused")
			}
			g.workspace.Store(cfg.Workspace)
			return nil
		},
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{Name: "ws", InputSchema: json.RawMessage(`{"type":"object"}`)},
			Run: func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
				g.runs.Add(1)
				ws, _ := g.workspace.Load().(string)
				return sdk.Result{Content: ws}, nil
			},
		}},
	}
}

type outcome struct {
	res sdk.Result
	err error
}

func TestExecuteAfterWaitsForItsConfigure(t *testing.T) {
	t.Parallel()
	g := newGated()
	c := sdktest.ConnectTool(t, g.set())
	ctx := context.Background()
	if _, err := c.Describe(ctx); err != nil || !c.OrdersConfigure() {
		t.Fatalf("this SDK's Describe should report ordered_configure (err %v)", err)
	}

	// The Execute is sent before the Configure it names.
	executed := make(chan outcome, 1)
	go func() {
		res, err := c.ExecuteAfter(ctx, sdk.Call{ID: "1", Tool: "ws", Arguments: json.RawMessage(`{}`)}, nil, 1)
		executed <- outcome{res, err}
	}()
	configured := make(chan error, 1)
	go func() { configured <- c.ConfigureSeq(ctx, sdk.PluginConfig{Workspace: "/ws"}, 1) }()
	<-g.configuring
	select {
	case o := <-executed:
		t.Fatalf("Execute answered while its Configure was still running: %+v", o)
	default:
	}
	close(g.release)
	if err := <-configured; err != nil {
		t.Fatal(err)
	}
	if o := <-executed; o.err != nil || o.res.Err != nil || o.res.Content != "/ws" {
		t.Fatalf("pipelined Execute: %+v", o)
	}

	// A refused Configure: the call naming it is answered with the
	// refusal and never runs.
	runs := g.runs.Load()
	go func() { configured <- c.ConfigureSeq(ctx, sdk.PluginConfig{Workspace: "refuse"}, 2) }()
	res, err := c.ExecuteAfter(ctx, sdk.Call{ID: "2", Tool: "ws", Arguments: json.RawMessage(`{}`)}, nil, 2)
	if err != nil || res.Err == nil || res.Err.Kind != sdk.KindInvalidArgs || res.Err.Message != "workspace refused" {
		t.Fatalf("Execute after a refused Configure: %+v %v", res, err)
	}
	if err := <-configured; err == nil {
		t.Fatal("the refused Configure returned no error")
	}
	if g.runs.Load() != runs {
		t.Fatal("the tool ran after its Configure was refused")
	}

	// An Execute naming no Configure (an older host) runs at once.
	if res, err := c.Execute(ctx, sdk.Call{ID: "3", Tool: "ws", Arguments: json.RawMessage(`{}`)}, nil); err != nil || res.Err != nil {
		t.Fatalf("unnumbered Execute: %+v %v", res, err)
	}
}
