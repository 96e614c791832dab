package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/proto/providerv1"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// longFixture is a recorded DeepSeek answer of 401 data events (400 text
// deltas and the finish chunk): 403 stream chunks once translated. The
// plugin may send fewer over gRPC (the SDK merges deltas already queued
// behind the one it sends), so costs are per upstream chunk, these 403.
const (
	longFixture       = "vercel-deepseek-chat-text-length.2025-12.chunks.jsonl"
	longFixtureChunks = 403
)

// BenchmarkProviderStream measures the cost per stream chunk of a model
// answer, alternating three paths:
//
//   - harness: the fake DeepSeek server replays the recorded answer over
//     HTTP to the built-in provider-deepseek plugin (SSE parsing, chunk
//     translation), which streams it over gRPC to the host, where the block
//     assembler builds the message;
//   - harness+store: what a run does with the same stream: the agent
//     loop's model request through the llm client (its hooks, retry and
//     metering), the deltas batched into assistant.chunk events per block
//     (at most 40 ms or 1 KiB each) and committed to a SQLite session store
//     with llm.request and the closing group (llm.usage, assistant.message,
//     agent.response);
//   - bare: go-plugin and a raw gRPC server stream of as many canned chunks
//     from bench/bareplugin, read and dropped.
func BenchmarkProviderStream(b *testing.B) {
	ctx := context.Background()
	fake := fakedeepseek.New(b)
	fake.Repeat(fakedeepseek.Fixture(b, filepath.Join(fakedeepseek.FixturesDir(b), "deepseek", longFixture)))

	h, err := pluginhost.New(pluginhost.Options{SelfExe: harnessBin})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	if err := h.Register(pluginhost.Spec{Name: "deepseek", Kind: sdk.PluginProvider, Builtin: true, Serves: "provider-deepseek"}); err != nil {
		b.Fatal(err)
	}
	ph, err := h.Provider("deepseek")
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"api_key": "sk-bench", "base_url": fake.URL})
	if err := ph.Configure(ctx, cfg); err != nil {
		b.Fatal(err)
	}
	model := sdk.ModelInfo{ID: "deepseek-chat", ContextWindow: 128000}
	handle, err := ph.PrepareCall(ctx, sdk.PrepareRequest{Model: model})
	if err != nil {
		b.Fatal(err)
	}
	req := sdk.StreamRequest{Model: model, Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "Plan a holiday"}}}

	store, err := session.Open(filepath.Join(b.TempDir(), session.StoreFile))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	info, err := store.CreateSession(ctx, session.SessionInfo{Agent: "bench"})
	if err != nil {
		b.Fatal(err)
	}

	// harness streams one answer and returns how many chunks it got.
	harness := func() int {
		n := 0
		asm := llm.NewAssembler(func(int, string, string) {})
		err := ph.Stream(ctx, handle, req, func(c sdk.StreamChunk) error {
			n++
			return asm.Add(c)
		})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := asm.Message(); err != nil {
			b.Fatal(err)
		}
		return n
	}
	// run answers the same request as the agent loop of a run does and
	// returns the assistant.chunk events it committed.
	rec := tools.SessionRecorder(store, info.ID)
	var chunkEvents int
	rec.Sink = func(ev session.Event) {
		if ev.Type == event.TypeAssistantChunk {
			chunkEvents++
		}
	}
	client := llm.NewClient(func(string) (llm.Streamer, error) { return providerStreamer{ph}, nil }, llm.Options{})
	loopCfg := agent.Config{Session: info.ID, Agent: "bench", Bindings: []llm.Binding{{Name: "chat", Provider: "deepseek", Model: model}}}
	run := func() int {
		before := chunkEvents
		_, out := agent.New(loopCfg, client, noTools{}, rec, rec).Run(ctx, req.Messages)
		if out.Status != agent.StatusCompleted {
			b.Fatalf("the run ended %s: %v", out.Status, out.Err)
		}
		return chunkEvents - before
	}

	bareCl := bareClient(barePlugin)
	defer bareCl.Kill()
	rpc, err := bareCl.Client()
	if err != nil {
		b.Fatal(err)
	}
	raw := providerv1.NewProviderClient(rpc.(*plugin.GRPCClient).Conn)
	bare := func() int {
		stream, err := raw.Stream(ctx, &providerv1.Stream_Request{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return n
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}

	var viaHarness, viaHarnessStore, viaBare timings
	var chunks, bareChunks, committed int
	for b.Loop() {
		viaHarness.time(func() { chunks = harness() })
		viaHarnessStore.time(func() { committed = run() })
		viaBare.time(func() { bareChunks = bare() })
	}
	perChunk := func(t timings, n int) timings {
		out := make(timings, len(t))
		for i, d := range t {
			out[i] = d / time.Duration(n)
		}
		return out
	}
	report(b, time.Microsecond, []string{"harness-chunk", "bare-chunk", "harness+store-chunk"},
		perChunk(viaHarness, longFixtureChunks), perChunk(viaBare, bareChunks), perChunk(viaHarnessStore, longFixtureChunks))
	b.ReportMetric(float64(chunks), "chunks")
	b.ReportMetric(float64(committed), "chunk-events")
	b.ReportMetric(float64(bareChunks), "bare-chunks")
}

// providerStreamer is the llm layer's view of a provider plugin, as the
// runner's.
type providerStreamer struct{ h *pluginhost.ProviderHandle }

func (p providerStreamer) Prepare(ctx context.Context, b llm.Binding) (sdk.Handle, error) {
	return p.h.PrepareCall(ctx, b.PrepareRequest())
}

func (p providerStreamer) Stream(ctx context.Context, h sdk.Handle, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	return p.h.Stream(ctx, h, req, emit)
}

// noTools is an agent without tools.
type noTools struct{}

func (noTools) Definitions() []sdk.ToolDefinition { return nil }
func (noTools) Run(context.Context, sdk.Call) tools.Outcome {
	panic("the benchmark's model called a tool")
}
