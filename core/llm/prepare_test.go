package llm_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

// gatedStreamer holds each Prepare until release is closed; the first
// failures of them fail.
type gatedStreamer struct {
	entered chan struct{} // a value per Prepare that began
	release chan struct{}

	mu       sync.Mutex
	failures int
	prepared int
	streamed []sdk.Handle
}

func (g *gatedStreamer) Prepare(ctx context.Context, b llm.Binding) (sdk.Handle, error) {
	g.entered <- struct{}{}
	<-g.release
	g.mu.Lock()
	defer g.mu.Unlock()
	g.prepared++
	if g.failures > 0 {
		g.failures--
		return sdk.Handle{}, sdk.Errorf(sdk.KindProcessExit, "scripted prepare failure")
	}
	return sdk.Handle{ID: fmt.Sprintf("h%d", g.prepared)}, nil
}

func (g *gatedStreamer) Stream(_ context.Context, h sdk.Handle, _ sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	g.mu.Lock()
	g.streamed = append(g.streamed, h)
	g.mu.Unlock()
	for _, c := range answer("ok").chunks {
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

// TestPrepareAheadOfTheFirstRequest: Client.Prepare prepares a binding
// before its first request, which streams with that handle, waiting for it
// when it is still being prepared, without preparing again; a Prepare that
// failed is not kept, and the request prepares anew.
func TestPrepareAheadOfTheFirstRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		failures     int
		wantPrepared int
		wantHandle   string
	}{
		{"kept", 0, 1, "h1"},
		{"failed", 1, 2, "h2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := &gatedStreamer{entered: make(chan struct{}, 2), release: make(chan struct{}), failures: tt.failures}
			c := llm.NewClient(func(string) (llm.Streamer, error) { return g, nil }, llm.Options{})
			early := make(chan struct{})
			go func() {
				defer close(early)
				c.Prepare(context.Background(), flash)
			}()
			<-g.entered // the early Prepare is in the provider
			type completed struct {
				msg llm.AssistantMessage
				err error
			}
			done := make(chan completed, 1)
			go func() {
				msg, _, err := c.Complete(context.Background(), llm.Request{Bindings: []llm.Binding{flash},
					Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}, nil)
				done <- completed{msg, err}
			}()
			close(g.release)
			<-early
			got := <-done
			if got.err != nil || got.msg.Text != "ok" {
				t.Fatalf("request: %+v, %v", got.msg, got.err)
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.prepared != tt.wantPrepared || len(g.streamed) != 1 || g.streamed[0].ID != tt.wantHandle {
				t.Errorf("%d prepares, streamed with %+v; want %d prepares, one stream with %s", g.prepared, g.streamed, tt.wantPrepared, tt.wantHandle)
			}
		})
	}
}
