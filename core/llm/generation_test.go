package llm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

// recordingStreamer adapts a provider plugin handle and records which
// handles Prepare returned and which ones Stream used.
type recordingStreamer struct {
	h        *pluginhost.ProviderHandle
	mu       sync.Mutex
	prepared []sdk.Handle
	streamed []sdk.Handle
}

func (s *recordingStreamer) Prepare(ctx context.Context, b llm.Binding) (sdk.Handle, error) {
	h, err := s.h.PrepareCall(ctx, b.PrepareRequest())
	if err == nil {
		s.mu.Lock()
		s.prepared = append(s.prepared, h)
		s.mu.Unlock()
	}
	return h, err
}

func (s *recordingStreamer) Stream(ctx context.Context, h sdk.Handle, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	s.mu.Lock()
	s.streamed = append(s.streamed, h)
	s.mu.Unlock()
	return s.h.Stream(ctx, h, req, emit)
}

type retries struct{ kinds []sdk.ErrorKind }

func (r *retries) OnRetry(_ int, kind sdk.ErrorKind, _ time.Duration) {
	r.kinds = append(r.kinds, kind)
}
func (r *retries) OnChunk(int, string, string)             {}
func (r *retries) OnUsage(llm.Binding, sdk.Usage, float64) {}

// A provider plugin killed between prepare and stream: the next request
// runs on a fresh process, prepared again, never with the old handle.
func TestProviderKilledBetweenPrepareAndStream(t *testing.T) {
	dir := t.TempDir()
	bin := testkit.Build(t, "../../plugins/provider-script/cmd/harness-provider-script")
	script := filepath.Join(dir, "turns.hcl")
	if err := os.WriteFile(script, []byte("turn {\n  text = \"one\"\n}\nturn {\n  text = \"two\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := pluginhost.FileSHA256(bin)
	if err != nil {
		t.Fatal(err)
	}
	host, err := pluginhost.New(pluginhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if err := host.Register(pluginhost.Spec{Name: "script", Kind: sdk.PluginProvider, Path: bin, SHA256: sum}); err != nil {
		t.Fatal(err)
	}
	ph, err := host.Provider("script")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ph.Configure(ctx, []byte(fmt.Sprintf(`{"script":%q}`, script))); err != nil {
		t.Fatal(err)
	}
	s := &recordingStreamer{h: ph}
	client := llm.NewClient(func(string) (llm.Streamer, error) { return s, nil },
		llm.Options{Sleep: func(context.Context, time.Duration) error { return nil }})
	binding := llm.Binding{Name: "m", Provider: "script", Model: sdk.ModelInfo{ID: "script", ContextWindow: 1000}}
	req := llm.Request{Bindings: []llm.Binding{binding}, Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}

	msg, _, err := client.Complete(ctx, req, &retries{})
	if err != nil || msg.Text != "one" {
		t.Fatalf("first request: %q %v", msg.Text, err)
	}
	old := s.prepared[len(s.prepared)-1]
	pid := host.PID("script")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, func() bool { return host.PID("script") != pid }, "the host to see the killed provider exit")

	obs := &retries{}
	req.Messages = append(req.Messages, sdk.Message{Role: sdk.RoleAssistant, Content: "one"}, sdk.Message{Role: sdk.RoleUser, Content: "again"})
	msg, _, err = client.Complete(ctx, req, obs)
	if err != nil || msg.Text != "two" {
		t.Fatalf("request after the kill: %q %v (retries %v)", msg.Text, err, obs.kinds)
	}
	if len(obs.kinds) == 0 {
		t.Error("the dead generation went unnoticed")
	}
	last := s.streamed[len(s.streamed)-1]
	if last == old || last.Generation == old.Generation {
		t.Errorf("streamed with handle %+v of the old generation %+v", last, old)
	}
	if host.PID("script") == pid || host.PID("script") == 0 {
		t.Error("no fresh provider process")
	}
}
