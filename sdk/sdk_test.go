package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
	"github.com/harness-agent/harness/sdk/sdktest"
)

func echoTools() *sdk.ToolSet {
	return &sdk.ToolSet{
		Name:    "echo",
		Version: "1.0.0",
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{
				Name:         "echo",
				Description:  "Echoes its input.",
				InputSchema:  schema.Object(schema.String("text", "What to echo.").Required()).JSON(),
				Capabilities: sdk.Capabilities{Reads: true},
			},
			Run: func(_ context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error) {
				var args struct{ Text string }
				if err := sdk.DecodeArgs(call, &args); err != nil {
					return sdk.Result{}, err
				}
				switch args.Text {
				case "panic":
					panic("boom")
				case "fail":
					return sdk.Result{}, errors.New("plain failure")
				}
				progress("stdout", "partial ")
				return sdk.Result{Content: args.Text, Presentation: sdk.SearchView{Query: "q", Total: 1, Hits: []sdk.SearchHit{{Path: "a.go", Line: 3, Text: args.Text}}}}, nil
			},
		}},
	}
}

func TestToolRoundTrip(t *testing.T) {
	t.Parallel()
	client := sdktest.ConnectTool(t, echoTools())
	ctx := context.Background()

	info, err := client.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "echo" || len(info.Tools) != 1 || !info.Tools[0].Reads || info.Tools[0].Writes {
		t.Fatalf("describe: %+v", info)
	}
	var schemaDoc map[string]any
	if err := json.Unmarshal(info.Tools[0].InputSchema, &schemaDoc); err != nil || schemaDoc["type"] != "object" {
		t.Fatalf("input schema did not survive: %s (%v)", info.Tools[0].InputSchema, err)
	}

	var progress []string
	res, err := client.Execute(ctx, sdk.Call{ID: "c1", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)},
		func(stream, text string) { progress = append(progress, stream+":"+text) })
	if err != nil {
		t.Fatal(err)
	}
	want := sdk.Result{Content: "hi", Presentation: sdk.SearchView{Query: "q", Total: 1, Hits: []sdk.SearchHit{{Path: "a.go", Line: 3, Text: "hi"}}}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"stdout:partial "}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

func TestToolFailuresAreStructured(t *testing.T) {
	t.Parallel()
	client := sdktest.ConnectTool(t, echoTools())
	tests := []struct {
		name, tool, args string
		kind             sdk.ErrorKind
	}{
		{"bad json", "echo", `{"text":1}`, sdk.KindInvalidArgs},
		{"plain error", "echo", `{"text":"fail"}`, sdk.KindInternal},
		{"panic", "echo", `{"text":"panic"}`, sdk.KindInternal},
		{"unknown tool", "nope", `{}`, sdk.KindToolNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := client.Execute(context.Background(), sdk.Call{ID: "c", Tool: tt.tool, Arguments: json.RawMessage(tt.args)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err == nil || res.Err.Kind != tt.kind {
				t.Fatalf("got %+v, want kind %s", res.Err, tt.kind)
			}
			if res.Content == "" {
				t.Error("a failed call must still tell the model something")
			}
		})
	}
}

type fakeProvider struct{ configured int }

func (p *fakeProvider) Configure(context.Context, json.RawMessage) error { p.configured++; return nil }
func (p *fakeProvider) Models(context.Context) ([]sdk.ModelInfo, error) {
	return []sdk.ModelInfo{{ID: "m", ContextWindow: 1000, Pricing: &sdk.Pricing{Output: 1}}}, nil
}

func (p *fakeProvider) Stream(_ context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	for _, c := range []sdk.StreamChunk{
		{Type: sdk.ChunkBlockStart, Index: 0, Kind: sdk.BlockText},
		{Type: sdk.ChunkBlockDelta, Index: 0, Text: req.Model.ID + ":" + req.Messages[0].Content},
		{Type: sdk.ChunkBlockEnd, Index: 0},
		{Type: sdk.ChunkFinish, Reason: "stop", Usage: &sdk.Usage{PromptTokens: 3}},
	} {
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

func TestProviderGenerations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := sdktest.ConnectProvider(t, &fakeProvider{})
	if err := client.Configure(ctx, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	models, err := client.Models(ctx)
	if err != nil || len(models) != 1 || models[0].Pricing == nil {
		t.Fatalf("models: %+v %v", models, err)
	}
	h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: models[0]})
	if err != nil {
		t.Fatal(err)
	}
	collect := func(h sdk.Handle) []sdk.StreamChunk {
		var got []sdk.StreamChunk
		err := client.Stream(ctx, h, sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}},
			func(c sdk.StreamChunk) error { got = append(got, c); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := collect(h)
	if len(got) != 4 || got[1].Text != "m:hi" || got[3].Usage.PromptTokens != 3 {
		t.Fatalf("stream: %+v", got)
	}
	// Reconfiguring ends the generation: the old handle is refused.
	if err := client.Configure(ctx, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	got = collect(h)
	if len(got) != 1 || got[0].Type != sdk.ChunkError || got[0].Err.Kind != sdk.KindStaleHandle {
		t.Fatalf("stale handle not refused: %+v", got)
	}
}

type denyTerminal struct{}

func (denyTerminal) Phases(context.Context) ([]string, error) { return []string{sdk.PhaseApprove}, nil }
func (denyTerminal) Handle(_ context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error) {
	if ev.ActionKind == "terminal" {
		return sdk.HookVerdict{Decision: sdk.DecisionDeny, Reason: "no shell: " + ev.Summary}, nil
	}
	return sdk.HookVerdict{}, nil
}

func TestHookRoundTrip(t *testing.T) {
	t.Parallel()
	client := sdktest.ConnectHook(t, denyTerminal{})
	phases, err := client.Phases(context.Background())
	if err != nil || len(phases) != 1 || phases[0] != sdk.PhaseApprove {
		t.Fatalf("phases %v %v", phases, err)
	}
	v, err := client.Handle(context.Background(), sdk.HookEvent{Phase: sdk.PhaseApprove, ActionKind: "terminal", Summary: "rm x"})
	if err != nil || v.Decision != sdk.DecisionDeny || v.Reason != "no shell: rm x" {
		t.Fatalf("verdict %+v %v", v, err)
	}
}
