package llm_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

// step is one scripted attempt of a fakeStreamer: chunks to emit, then the
// error Stream returns (a transport failure), if any.
type step struct {
	chunks []sdk.StreamChunk
	err    error
}

func fail(kind sdk.ErrorKind, retryAfter time.Duration) step {
	e := sdk.Errorf(kind, "scripted %s", kind)
	e.RetryAfter = retryAfter
	return step{chunks: []sdk.StreamChunk{{Type: sdk.ChunkError, Err: e}}}
}

func answer(text string) step {
	return step{chunks: []sdk.StreamChunk{
		start(0, sdk.BlockText), delta(0, text), end(0),
		finish("stop", &sdk.Usage{PromptTokens: 100, CompletionTokens: 10, CacheHitTokens: 60, CacheMissTokens: 40}),
	}}
}

// fakeStreamer plays scripted attempts and refuses handles of an ended
// generation the way the SDK's provider server does.
type fakeStreamer struct {
	t *testing.T

	mu         sync.Mutex
	steps      []step
	generation uint64
	prepared   []sdk.Handle
	streamed   []sdk.Handle
}

func (f *fakeStreamer) Prepare(_ context.Context, b llm.Binding) (sdk.Handle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := sdk.Handle{ID: fmt.Sprintf("%s-%d", b.Name, len(f.prepared)+1), Generation: f.generation}
	f.prepared = append(f.prepared, h)
	return h, nil
}

func (f *fakeStreamer) Stream(_ context.Context, h sdk.Handle, _ sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	f.mu.Lock()
	f.streamed = append(f.streamed, h)
	if h.Generation != f.generation {
		f.mu.Unlock()
		return emit(errChunk(sdk.KindStaleHandle))
	}
	if len(f.steps) == 0 {
		f.mu.Unlock()
		f.t.Error("an attempt more than scripted")
		return sdk.Errorf(sdk.KindInternal, "no more steps")
	}
	s := f.steps[0]
	f.steps = f.steps[1:]
	f.mu.Unlock()
	for _, c := range s.chunks {
		if err := emit(c); err != nil {
			return err
		}
	}
	return s.err
}

func (f *fakeStreamer) bump() {
	f.mu.Lock()
	f.generation++
	f.mu.Unlock()
}

// recorder is an Observer that writes what it sees as lines.
type recorder struct{ lines []string }

func (r *recorder) OnRetry(attempt int, kind sdk.ErrorKind, delay time.Duration) {
	r.lines = append(r.lines, fmt.Sprintf("retry %d %s %s", attempt, kind, delay))
}

func (r *recorder) OnChunk(block int, kind, delta string) {
	r.lines = append(r.lines, fmt.Sprintf("chunk %d %s %s", block, kind, delta))
}

func (r *recorder) OnUsage(b llm.Binding, u sdk.Usage, cost float64) {
	r.lines = append(r.lines, fmt.Sprintf("usage %s %d/%d $%.6f", b.Name, u.PromptTokens, u.CompletionTokens, cost))
}

var (
	flash  = llm.Binding{Name: "flash", Provider: "p1", Model: sdk.ModelInfo{ID: "f", Pricing: &sdk.Pricing{InputCacheHit: 1, InputCacheMiss: 10, Output: 100}}}
	backup = llm.Binding{Name: "backup", Provider: "p2", Model: sdk.ModelInfo{ID: "b"}}
)

type harness struct {
	client  *llm.Client
	streams map[string]*fakeStreamer
	delays  []time.Duration
}

func newHarness(t *testing.T, budget llm.BudgetCheck, steps map[string][]step) *harness {
	h := &harness{streams: map[string]*fakeStreamer{}}
	for p, s := range steps {
		h.streams[p] = &fakeStreamer{t: t, steps: s}
	}
	h.client = llm.NewClient(func(provider string) (llm.Streamer, error) {
		s, ok := h.streams[provider]
		if !ok {
			return nil, fmt.Errorf("no provider %q", provider)
		}
		return s, nil
	}, llm.Options{
		Budget: budget,
		Rand:   func() float64 { return 0.5 },
		Sleep: func(ctx context.Context, d time.Duration) error {
			h.delays = append(h.delays, d)
			return ctx.Err()
		},
	})
	t.Cleanup(func() {
		for p, s := range h.streams {
			if len(s.steps) != 0 {
				t.Errorf("provider %s: %d scripted attempts not used", p, len(s.steps))
			}
		}
	})
	return h
}

func (h *harness) complete(bindings ...llm.Binding) (llm.AssistantMessage, llm.Binding, *recorder, error) {
	rec := &recorder{}
	msg, b, err := h.client.Complete(context.Background(), llm.Request{Bindings: bindings, Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}, rec)
	return msg, b, rec, err
}

func TestWaterfall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		steps    map[string][]step
		bindings []llm.Binding
		wantText string
		wantFrom string
		wantKind sdk.ErrorKind
		delays   []time.Duration
		lines    []string
	}{
		{
			name:     "429 honours Retry-After when longer than the backoff",
			steps:    map[string][]step{"p1": {fail(sdk.KindRateLimited, 2*time.Second), answer("ok")}},
			bindings: []llm.Binding{flash},
			wantText: "ok", wantFrom: "flash",
			delays: []time.Duration{2 * time.Second},
			lines:  []string{"retry 1 rate_limited 2s", "chunk 0 text ok", "usage flash 100/10 $0.001460"},
		},
		{
			name:     "Retry-After is capped at 60s",
			steps:    map[string][]step{"p1": {fail(sdk.KindRateLimited, 5*time.Minute), answer("ok")}},
			bindings: []llm.Binding{flash},
			wantText: "ok", wantFrom: "flash",
			delays: []time.Duration{time.Minute},
		},
		{
			name:     "503 twice then success: backoff 0.5s, 1s with equal jitter",
			steps:    map[string][]step{"p1": {fail(sdk.KindProviderUnavailable, 0), fail(sdk.KindProviderUnavailable, 0), answer("third")}},
			bindings: []llm.Binding{flash},
			wantText: "third", wantFrom: "flash",
			delays: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond},
			lines: []string{
				"retry 1 provider_unavailable 375ms", "retry 2 provider_unavailable 750ms",
				"chunk 0 text third", "usage flash 100/10 $0.001460",
			},
		},
		{
			name:     "401 is never retried nor falls back",
			steps:    map[string][]step{"p1": {fail(sdk.KindAuth, 0)}},
			bindings: []llm.Binding{flash, backup},
			wantKind: sdk.KindAuth, wantFrom: "flash",
		},
		{
			name:     "stream violation is never retried",
			steps:    map[string][]step{"p1": {{chunks: []sdk.StreamChunk{finish("stop", nil), delta(0, "late")}}}},
			bindings: []llm.Binding{flash, backup},
			wantKind: sdk.KindStreamViolation, wantFrom: "flash",
		},
		{
			name: "truncated mid tool call: the partial call is void",
			steps: map[string][]step{"p1": {
				{chunks: []sdk.StreamChunk{startTool(0, "c1", "read_file"), delta(0, `{"path":"RE`)}},
				{chunks: []sdk.StreamChunk{startTool(0, "c1", "read_file"), delta(0, `{"path":"README.md"}`), end(0), finish("tool_calls", nil)}},
			}},
			bindings: []llm.Binding{flash},
			wantFrom: "flash",
			delays:   []time.Duration{375 * time.Millisecond},
			lines: []string{
				`chunk 0 tool_call {"path":"RE`, "retry 1 truncated 375ms", `chunk 0 tool_call {"path":"README.md"}`,
			},
		},
		{
			name: "four 503s exhaust the binding, then the next binding answers",
			steps: map[string][]step{
				"p1": {fail(sdk.KindProviderUnavailable, 0), fail(sdk.KindProviderUnavailable, 0), fail(sdk.KindProviderUnavailable, 0), fail(sdk.KindProviderUnavailable, 0)},
				"p2": {answer("from backup")},
			},
			bindings: []llm.Binding{flash, backup},
			wantText: "from backup", wantFrom: "backup",
			delays: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond},
			lines: []string{
				"retry 1 provider_unavailable 375ms", "retry 2 provider_unavailable 750ms", "retry 3 provider_unavailable 1.5s",
				"retry 4 provider_unavailable 0s", "chunk 0 text from backup", "usage backup 100/10 $0.000000",
			},
		},
		{
			name:     "exhausted single binding fails with the last kind",
			steps:    map[string][]step{"p1": {fail(sdk.KindTimeout, 0), fail(sdk.KindTimeout, 0), fail(sdk.KindTimeout, 0), fail(sdk.KindTimeout, 0)}},
			bindings: []llm.Binding{flash},
			wantKind: sdk.KindTimeout, wantFrom: "flash",
			delays: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond},
		},
		{
			name: "plugin crash is retried once at once, then falls back",
			steps: map[string][]step{
				"p1": {{err: sdk.Errorf(sdk.KindProcessExit, "plugin exited")}, {err: sdk.Errorf(sdk.KindProcessExit, "plugin exited")}},
				"p2": {answer("b")},
			},
			bindings: []llm.Binding{flash, backup},
			wantText: "b", wantFrom: "backup",
			delays: []time.Duration{0},
			lines:  []string{"retry 1 process_exit 0s", "retry 2 process_exit 0s", "chunk 0 text b", "usage backup 100/10 $0.000000"},
		},
		{
			name: "a failed attempt's usage is still metered",
			steps: map[string][]step{"p1": {
				{chunks: []sdk.StreamChunk{{Type: sdk.ChunkUsage, Usage: &sdk.Usage{PromptTokens: 50}}, errChunk(sdk.KindTruncated)}},
				answer("ok"),
			}},
			bindings: []llm.Binding{flash},
			wantText: "ok", wantFrom: "flash",
			delays: []time.Duration{375 * time.Millisecond},
			lines:  []string{"usage flash 50/0 $0.000500", "retry 1 truncated 375ms", "chunk 0 text ok", "usage flash 100/10 $0.001460"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil, tc.steps)
			msg, b, rec, err := h.complete(tc.bindings...)
			if b.Name != tc.wantFrom {
				t.Errorf("binding %q, want %q", b.Name, tc.wantFrom)
			}
			if tc.wantKind != "" {
				if sdk.KindOf(err) != tc.wantKind {
					t.Fatalf("error %v, want kind %s", err, tc.wantKind)
				}
				if !reflect.DeepEqual(msg, llm.AssistantMessage{}) {
					t.Fatalf("a failed request returned a message: %+v", msg)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if msg.Text != tc.wantText {
				t.Errorf("text %q, want %q", msg.Text, tc.wantText)
			}
			if !reflect.DeepEqual(h.delays, tc.delays) {
				t.Errorf("delays %v, want %v", h.delays, tc.delays)
			}
			if tc.lines != nil && !reflect.DeepEqual(rec.lines, tc.lines) {
				t.Errorf("observed\n got %q\nwant %q", rec.lines, tc.lines)
			}
		})
	}
}

func TestTruncatedToolCallNeverReturned(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, map[string][]step{"p1": {
		{chunks: []sdk.StreamChunk{startTool(0, "c1", "terminal"), delta(0, `{"command":"rm -rf build`)}},
		{chunks: []sdk.StreamChunk{start(0, sdk.BlockText), delta(0, "Nothing to do."), end(0), finish("stop", nil)}},
	}})
	msg, _, _, err := h.complete(flash)
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.ToolCalls) != 0 || msg.Text != "Nothing to do." {
		t.Fatalf("message carries the failed attempt: %+v", msg)
	}
}

func TestStaleHandleIsPreparedAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, map[string][]step{"p1": {answer("one"), answer("two")}})
	fs := h.streams["p1"]
	if _, _, _, err := h.complete(flash); err != nil {
		t.Fatal(err)
	}
	old := fs.prepared[0]
	fs.bump() // the plugin was reconfigured or restarted: its generation ended
	msg, _, rec, err := h.complete(flash)
	if err != nil || msg.Text != "two" {
		t.Fatalf("got %+v, %v", msg, err)
	}
	if len(fs.prepared) != 2 || fs.prepared[1].Generation != old.Generation+1 {
		t.Fatalf("prepared %+v, want a second handle of the new generation", fs.prepared)
	}
	want := []sdk.Handle{old, old, fs.prepared[1]}
	if !reflect.DeepEqual(fs.streamed, want) {
		t.Fatalf("streamed with %+v, want %+v", fs.streamed, want)
	}
	if len(h.delays) != 1 || h.delays[0] != 0 || rec.lines[0] != "retry 1 stale_handle 0s" {
		t.Fatalf("delays %v, observed %q", h.delays, rec.lines)
	}
	// The new handle is kept: the next call does not prepare.
	fs.steps = append(fs.steps, answer("three"))
	if _, _, _, err := h.complete(flash); err != nil || len(fs.prepared) != 2 {
		t.Fatalf("third call: %v, prepared %d times", err, len(fs.prepared))
	}
}

func TestBudgetPreCheck(t *testing.T) {
	t.Parallel()
	checks := 0
	budget := func(context.Context) error {
		checks++
		if checks > 1 {
			return sdk.Errorf(sdk.KindBudgetExceeded, "max_usd 1.50 reached")
		}
		return nil
	}
	h := newHarness(t, budget, map[string][]step{"p1": {fail(sdk.KindRateLimited, 0)}})
	_, _, _, err := h.complete(flash, backup)
	if sdk.KindOf(err) != sdk.KindBudgetExceeded || checks != 2 {
		t.Fatalf("error %v after %d checks, want budget_exceeded after 2", err, checks)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	fs := &fakeStreamer{t: t, steps: []step{fail(sdk.KindRateLimited, 30*time.Second)}}
	client := llm.NewClient(func(string) (llm.Streamer, error) { return fs, nil }, llm.Options{}) // real sleeper
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := &cancelOnRetry{cancel: cancel}
	begin := time.Now()
	_, _, err := client.Complete(ctx, llm.Request{Bindings: []llm.Binding{flash, backup}}, obs)
	if sdk.KindOf(err) != sdk.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want canceled", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("cancel took %s: the backoff did not watch the context", d)
	}
	if obs.retries != 1 {
		t.Fatalf("%d retries announced, want 1", obs.retries)
	}
}

type cancelOnRetry struct {
	recorder
	cancel  context.CancelFunc
	retries int
}

func (c *cancelOnRetry) OnRetry(int, sdk.ErrorKind, time.Duration) {
	c.retries++
	c.cancel() // the backoff that follows must end at once
}

func TestHookChain(t *testing.T) {
	t.Parallel()
	var order []string
	extra := namedHook{name: "trace", order: &order}
	client := llm.NewClient(func(string) (llm.Streamer, error) {
		return &fakeStreamer{t: t, steps: []step{answer("x")}}, nil
	}, llm.Options{Hooks: []llm.Hook{extra}})
	want := []string{"fallback", "llm/stream hooks", "retry", "budget", "metering", "trace"}
	if got := client.HookNames(); !reflect.DeepEqual(got, want) {
		t.Fatalf("hooks %v, want %v", got, want)
	}
	if _, _, err := client.Complete(context.Background(), llm.Request{Bindings: []llm.Binding{flash}}, nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(order, []string{"trace flash attempt 1"}) {
		t.Fatalf("extra hook saw %v", order)
	}
}

type namedHook struct {
	name  string
	order *[]string
}

func (h namedHook) Name() string { return h.name }

func (h namedHook) Wrap(next llm.Handler) llm.Handler {
	return func(ctx context.Context, call *llm.Call) (llm.AssistantMessage, error) {
		*h.order = append(*h.order, fmt.Sprintf("%s %s attempt %d", h.name, call.Binding.Name, call.Attempt))
		return next(ctx, call)
	}
}

func TestNoBindings(t *testing.T) {
	t.Parallel()
	client := llm.NewClient(func(string) (llm.Streamer, error) { return nil, errors.New("unused") }, llm.Options{})
	if _, _, err := client.Complete(context.Background(), llm.Request{}, nil); sdk.KindOf(err) != sdk.KindInvalidRequest {
		t.Fatalf("error %v", err)
	}
}
