package llm_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// echoProvider answers with the id of the model its handle was prepared
// with; the SDK's server starts a new generation on every Configure.
type echoProvider struct{}

func (echoProvider) Configure(context.Context, json.RawMessage) error { return nil }

func (echoProvider) Models(context.Context) ([]sdk.ModelInfo, error) {
	return []sdk.ModelInfo{{ID: "echo", ContextWindow: 1000}}, nil
}

func (echoProvider) Stream(_ context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	for _, c := range []sdk.StreamChunk{
		start(0, sdk.BlockText), delta(0, "model "+req.Model.ID), end(0),
		finish("stop", &sdk.Usage{PromptTokens: 1, CompletionTokens: 2}),
	} {
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

// clientStreamer adapts the host side of a provider plugin to llm.Streamer,
// as the plugin host does. afterPrepare runs once, after the first
// PrepareCall: the test reconfigures the plugin there.
type clientStreamer struct {
	client       *sdk.ProviderClient
	afterPrepare func()

	once     sync.Once
	prepared []sdk.Handle
	streamed []sdk.Handle
}

func (s *clientStreamer) Prepare(ctx context.Context, b llm.Binding) (sdk.Handle, error) {
	h, err := s.client.PrepareCall(ctx, b.PrepareRequest())
	if err != nil {
		return sdk.Handle{}, &sdk.Error{Kind: sdk.KindProcessExit, Message: err.Error()}
	}
	s.prepared = append(s.prepared, h)
	s.once.Do(s.afterPrepare)
	return h, nil
}

func (s *clientStreamer) Stream(ctx context.Context, h sdk.Handle, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	s.streamed = append(s.streamed, h)
	return s.client.Stream(ctx, h, req, emit)
}

func TestStaleHandleThroughPluginBoundary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pc := sdktest.ConnectProvider(t, echoProvider{})
	if err := pc.Configure(ctx, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	models, err := pc.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	binding, err := llm.Merge(llm.ModelDecl{Name: "e", Provider: "echo", ID: "echo", MaxOutput: 10}, models)
	if err != nil {
		t.Fatal(err)
	}
	s := &clientStreamer{client: pc, afterPrepare: func() {
		if err := pc.Configure(ctx, []byte(`{}`)); err != nil { // ends the generation of the handle just prepared
			t.Error(err)
		}
	}}
	client := llm.NewClient(func(string) (llm.Streamer, error) { return s, nil }, llm.Options{})
	rec := &recorder{}
	msg, _, err := client.Complete(ctx, llm.Request{Bindings: []llm.Binding{binding}, Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Text != "model echo" || msg.Usage.CompletionTokens != 2 {
		t.Fatalf("message %+v", msg)
	}
	if len(s.prepared) != 2 || s.prepared[1].Generation != s.prepared[0].Generation+1 {
		t.Fatalf("prepared %+v: want a second handle in the next generation", s.prepared)
	}
	if !reflect.DeepEqual(s.streamed, s.prepared) {
		t.Fatalf("streamed with %+v, want each prepared handle once: %+v", s.streamed, s.prepared)
	}
	want := []string{"retry 1 stale_handle 0s", "chunk 0 text model echo", "usage e 1/2 $0.000000"}
	if !reflect.DeepEqual(rec.lines, want) {
		t.Fatalf("observed %q, want %q", rec.lines, want)
	}
}
