package deepseek_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

func TestHTTPStatusKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		kind   sdk.ErrorKind
		says   string
	}{
		{400, sdk.KindInvalidRequest, "Invalid request format"},
		{401, sdk.KindAuth, "Authentication Fails"},
		{402, sdk.KindBilling, "Insufficient Balance"},
		{422, sdk.KindInvalidRequest, "Invalid parameters"},
		{429, sdk.KindRateLimited, "Rate Limit Reached"},
		{500, sdk.KindProviderUnavailable, "Server Error"},
		{502, sdk.KindProviderUnavailable, "Bad Gateway"},
		{503, sdk.KindProviderUnavailable, "Server Overloaded"},
		{504, sdk.KindProviderUnavailable, "Gateway Timeout"},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			srv := fakedeepseek.New(t, fakedeepseek.StatusError(tt.status))
			got := connectInProcess(t, srv, nil).stream(t, userRequest("hi"))
			wantError(t, got, tt.kind, tt.says, fmt.Sprintf("HTTP %d", tt.status))
			if len(got.Chunks) != 1 {
				t.Errorf("an HTTP error must be the only chunk, got %d", len(got.Chunks))
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(60 * time.Second).UTC().Truncate(time.Second)
	tests := []struct {
		name     string
		header   string
		min, max func() time.Duration
	}{
		{"seconds", "7", fixed(7 * time.Second), fixed(7 * time.Second)},
		// The date has 1 s resolution and the test may run late under load:
		// the hint is whatever is left until the date, rounded up.
		{"http date", at.Format(http.TimeFormat), func() time.Duration { return time.Until(at) - time.Second }, fixed(61 * time.Second)},
		{"garbage", "soon", fixed(0), fixed(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakedeepseek.New(t, fakedeepseek.StatusError(429).WithRetryAfter(tt.header))
			got := connectInProcess(t, srv, nil).stream(t, userRequest("hi"))
			wantError(t, got, sdk.KindRateLimited)
			if ra := got.Err.RetryAfter; ra < tt.min() || ra > tt.max() {
				t.Errorf("RetryAfter %v, want within [%v, %v]", ra, tt.min(), tt.max())
			}
		})
	}
}

func fixed(d time.Duration) func() time.Duration { return func() time.Duration { return d } }

// toolCallBody is the replay body of the v4-flash tool-call fixture and
// the offset of a byte in the middle of its tool-call arguments.
func toolCallBody(t *testing.T) (fakedeepseek.Response, int) {
	t.Helper()
	raw, err := os.ReadFile(fixture(t, "vercel-deepseek-v4flash-reasoning-then-toolcall-cachehit.2026-08.chunks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	cut, toolFrames := -1, 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.Contains(line, `"tool_calls"`) {
			if toolFrames++; toolFrames == 4 {
				cut = body.Len() + len(line)/2
			}
		}
		body.WriteString("data: " + line + "\n\n")
	}
	if cut < 0 {
		t.Fatal("the fixture has fewer than 4 tool-call deltas")
	}
	return fakedeepseek.Fixture(t, fixture(t, "vercel-deepseek-v4flash-reasoning-then-toolcall-cachehit.2026-08.chunks.jsonl")), cut
}

func TestTruncationInsideAToolCall(t *testing.T) {
	t.Parallel()
	resp, cut := toolCallBody(t)
	for _, at := range []int{cut, cut - cut%2} {
		srv := fakedeepseek.New(t, resp.TruncateAfter(at))
		got := connectInProcess(t, srv, nil).stream(t, userRequest("weather?"))
		wantError(t, got, sdk.KindTruncated)
		if len(got.Calls) != 1 || json.Valid([]byte(got.Calls[0].Arguments)) {
			t.Errorf("calls %+v: want one started call with incomplete arguments", got.Calls)
		}
		for _, c := range got.Chunks {
			if c.Type == sdk.ChunkBlockEnd && c.Index == 1 {
				t.Fatal("the cut tool block was closed: a consumer could run a half call")
			}
		}
	}
}

func TestCleanEOFBeforeDone(t *testing.T) {
	t.Parallel()
	path := fixture(t, "vercel-deepseek-v4flash-reasoning-then-toolcall-cachehit.2026-08.chunks.jsonl")
	t.Run("require_done", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, fakedeepseek.Fixture(t, path).WithoutDone())
		got := connectInProcess(t, srv, nil).stream(t, userRequest("weather?"))
		wantError(t, got, sdk.KindTruncated, "require_done = false", `finish_reason "tool_calls"`)
		if diff := cmp.Diff(usage(374, 61, 256, 118, 17), got.UsageBeforeErr); diff != "" {
			t.Errorf("usage reported before the error, so billed tokens can be metered (-want +got):\n%s", diff)
		}
	})
	t.Run("require_done=false", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, fakedeepseek.Fixture(t, path).WithoutDone())
		got := connectInProcess(t, srv, map[string]any{"require_done": false}).stream(t, userRequest("weather?"))
		if got.Err != nil || got.Finish != "tool_calls" || len(got.Calls) != 1 || got.Calls[0].Arguments != `{"location": "San Francisco"}` {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("require_done=false, no finish_reason", func(t *testing.T) {
		t.Parallel()
		lines := fixtureLines(t, path)
		first := -1
		for i, l := range lines {
			if strings.Contains(l, `"tool_calls"`) && first < 0 {
				first = i
			}
		}
		srv := fakedeepseek.New(t, fakedeepseek.Chunks(lines[:first+3]...).WithoutDone())
		got := connectInProcess(t, srv, map[string]any{"require_done": false}).stream(t, userRequest("weather?"))
		wantError(t, got, sdk.KindTruncated, `in the middle of tool call "weather"`)
	})
}

func fixtureLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(raw)), "\n")
}

// chunk is a DeepSeek chunk with the given choice delta, finish reason
// and usage (raw JSON; "" leaves them null).
func chunk(delta, finish, usage string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = `"` + finish + `"`
	}
	if usage == "" {
		usage = "null"
	}
	return `{"id":"x","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":` +
		delta + `,"logprobs":null,"finish_reason":` + finish + `}],"usage":` + usage + `}`
}

const finalUsage = `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":10}`

func TestDeadlines(t *testing.T) {
	t.Parallel()
	path := fixture(t, "vercel-deepseek-v4flash-text.2026-08.chunks.jsonl")
	tests := []struct {
		name     string
		resp     fakedeepseek.Response
		cfg      map[string]any
		kind     sdk.ErrorKind
		mentions string
	}{
		{"keep-alive stall before any data", fakedeepseek.KeepAliveStall(20 * time.Millisecond),
			map[string]any{"timeout_first_token": "200ms"}, sdk.KindTimeout, "timeout_first_token"},
		{"keep-alive stall after some data", fakedeepseek.Fixture(t, path).StallAfter(3, 20*time.Millisecond),
			map[string]any{"timeout_idle": "200ms"}, sdk.KindTimeout, "timeout_idle"},
		{"drip slower than the idle deadline", fakedeepseek.Fixture(t, path).Drip(150 * time.Millisecond),
			map[string]any{"timeout_first_token": "5000ms", "timeout_idle": "60ms"}, sdk.KindTimeout, "timeout_idle"},
		{"drip within the deadlines", fakedeepseek.Chunks(chunk(`{"content":"a"}`, "", ""), chunk(`{"content":"b"}`, "stop", finalUsage)).Drip(30 * time.Millisecond),
			map[string]any{"timeout_first_token": "3000ms", "timeout_idle": "2000ms"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakedeepseek.New(t, tt.resp)
			got := connectInProcess(t, srv, tt.cfg).stream(t, userRequest("hi"))
			if tt.kind == "" {
				if got.Err != nil || got.Text != "ab" || got.Finish != "stop" {
					t.Fatalf("got %v", got)
				}
				return
			}
			wantError(t, got, tt.kind, tt.mentions)
		})
	}
}

func TestStreamErrorsAndViolations(t *testing.T) {
	t.Parallel()
	textPath := fixture(t, "vercel-deepseek-v4flash-text.2026-08.chunks.jsonl")
	role := chunk(`{"role":"assistant","content":""}`, "", "")
	tests := []struct {
		name     string
		resp     fakedeepseek.Response
		kind     sdk.ErrorKind
		mentions []string
	}{
		{"error object: server", fakedeepseek.Fixture(t, textPath).ErrorAfter(5, "Server overloaded", "server_error", "server_overloaded"),
			sdk.KindProviderUnavailable, []string{"Server overloaded", "after 5 data events"}},
		{"error object: rate limit", fakedeepseek.Fixture(t, textPath).ErrorAfter(2, "slow down", "rate_limit_error", ""), sdk.KindRateLimited, []string{"slow down"}},
		{"error object: auth", fakedeepseek.Fixture(t, textPath).ErrorAfter(0, "bad key", "authentication_error", "invalid_request_error"), sdk.KindAuth, nil},
		{"error object: invalid request", fakedeepseek.Fixture(t, textPath).ErrorAfter(1, "too long", "invalid_request_error", "context_length_exceeded"), sdk.KindInvalidRequest, nil},
		{"error object: unknown type", fakedeepseek.Fixture(t, textPath).ErrorAfter(1, "what", "mystery", ""), sdk.KindProviderUnavailable, []string{"what"}},
		{"error object: bare string", fakedeepseek.Chunks(role, `{"error":"upstream went away"}`), sdk.KindProviderUnavailable, []string{"upstream went away"}},
		{"error event type", fakedeepseek.SSE([]byte("data: " + role + "\n\nevent: error\ndata: {\"error\":{\"message\":\"quota\",\"type\":\"insufficient_quota\"}}\n\n")),
			sdk.KindBilling, []string{"quota"}},
		{"malformed chunk", fakedeepseek.Fixture(t, textPath).MalformedAfter(3), sdk.KindStreamViolation, []string{"data event 4", "not a JSON chunk"}},
		{"content after finish", fakedeepseek.Chunks(role, chunk(`{"content":"a"}`, "stop", ""), chunk(`{"content":"late"}`, "", finalUsage)),
			sdk.KindStreamViolation, []string{`after finish_reason "stop"`}},
		{"[DONE] without finish_reason", fakedeepseek.Chunks(role, chunk(`{"content":"a"}`, "", "")), sdk.KindTruncated, []string{"without a finish_reason"}},
		{"server out of capacity", fakedeepseek.Chunks(role, chunk(`{"content":"a"}`, "insufficient_system_resource", finalUsage)),
			sdk.KindProviderUnavailable, []string{"insufficient_system_resource"}},
		{"tool call without a name", fakedeepseek.Chunks(role, chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"{}"}}]}`, "tool_calls", finalUsage)),
			sdk.KindStreamViolation, []string{"never received a function name"}},
		{"tool call resumed after its block ended", fakedeepseek.Chunks(role,
			chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":"{"}}]}`, "", ""),
			chunk(`{"content":"interlude"}`, "", ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`, "tool_calls", finalUsage)),
			sdk.KindStreamViolation, []string{"after its block ended"}},
		{"200 with a JSON error body", fakedeepseek.HTTPError(200, "Model Not Exist", "invalid_request_error", "invalid_request_error"),
			sdk.KindInvalidRequest, []string{"Model Not Exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakedeepseek.New(t, tt.resp)
			got := connectInProcess(t, srv, nil).stream(t, userRequest("hi"))
			wantError(t, got, tt.kind, tt.mentions...)
		})
	}
}

func TestEventSizeCap(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t, fakedeepseek.Fixture(t, fixture(t, "vercel-deepseek-v4flash-text.2026-08.chunks.jsonl")))
	got := connectInProcess(t, srv, map[string]any{"max_event_bytes": 100}).stream(t, userRequest("hi"))
	wantError(t, got, sdk.KindStreamViolation, "cap of 100 bytes", "max_event_bytes")
}

// TestToolCallMerging checks the merge rules on shapes the recorded
// fixtures do not have: index gaps, interleaved deltas, the name arriving
// after the first delta, and null or empty values that must not overwrite.
func TestToolCallMerging(t *testing.T) {
	t.Parallel()
	role := chunk(`{"role":"assistant","content":null,"reasoning_content":""}`, "", "")
	srv := fakedeepseek.New(t, fakedeepseek.Chunks(role,
		chunk(`{"reasoning_content":"think"}`, "", ""),
		chunk(`{"tool_calls":[{"index":2,"id":"call_a","type":"function","function":{"name":"alpha","arguments":""}}]}`, "", ""),
		chunk(`{"tool_calls":[{"index":5,"id":"call_b","type":"function","function":{"arguments":"{\"b\":"}}]}`, "", ""),
		chunk(`{"tool_calls":[{"index":2,"id":"","function":{"name":null,"arguments":"{\"a\":"}}]}`, "", ""),
		chunk(`{"tool_calls":[{"index":5,"id":null,"function":{"name":"beta","arguments":"2}"}}]}`, "", ""),
		chunk(`{"tool_calls":[{"index":2,"function":{"name":"","arguments":"1}"}}]}`, "", ""),
		chunk(`{"content":null}`, "tool_calls", finalUsage),
	))
	got := connectInProcess(t, srv, nil).stream(t, userRequest("go"))
	if got.Err != nil {
		t.Fatal(got.Err)
	}
	want := []sdk.ToolCall{{ID: "call_a", Name: "alpha", Arguments: `{"a":1}`}, {ID: "call_b", Name: "beta", Arguments: `{"b":2}`}}
	if diff := cmp.Diff(want, got.Calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sdk.BlockKind{reasoning, tool, tool}, got.Blocks); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	if got.Reasoning != "think" || got.Finish != "tool_calls" {
		t.Errorf("got %v", got)
	}
}

func TestBlocksAlternate(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t, fakedeepseek.Chunks(
		chunk(`{"role":"assistant","content":""}`, "", ""),
		chunk(`{"reasoning_content":"r1"}`, "", ""),
		chunk(`{"content":"t1","reasoning_content":null}`, "", ""),
		chunk(`{"reasoning_content":"r2","content":"t2"}`, "", ""),
		chunk(`{"content":""}`, "stop", finalUsage),
	))
	got := connectInProcess(t, srv, nil).stream(t, userRequest("go"))
	if diff := cmp.Diff([]sdk.BlockKind{reasoning, text, reasoning, text}, got.Blocks); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	if got.Text != "t1t2" || got.Reasoning != "r1r2" {
		t.Errorf("got %v", got)
	}
}

func TestConfigurationErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := sdktest.ConnectProvider(t, deepseek.New())
	for _, cfg := range []string{`{"base_url":"ftp://example.com"}`, `{"base_url":"not a url"}`, `{"timeout_idle":"-1s"}`, `{"timeout_first_token":"soon"}`, `{"max_event_bytes":-1}`, `{`} {
		if err := client.Configure(ctx, []byte(cfg)); err == nil {
			t.Errorf("config %s was accepted", cfg)
		}
	}
	// After a failed Configure the provider refuses to stream rather than
	// fall back to an older configuration.
	h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "deepseek-v4-flash"}})
	if err != nil {
		t.Fatal(err)
	}
	p := provider{client: client, handle: h}
	wantError(t, p.stream(t, userRequest("hi")), sdk.KindInvalidRequest, "Configure")
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	client := sdktest.ConnectProvider(t, deepseek.New())
	if err := client.Configure(context.Background(), []byte(`{"api_key":"`+testKey+`","base_url":"http://`+addr+`"}`)); err != nil {
		t.Fatal(err)
	}
	h, _ := client.PrepareCall(context.Background(), sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "deepseek-v4-flash"}})
	got := provider{client: client, handle: h}.stream(t, userRequest("hi"))
	wantError(t, got, sdk.KindProviderUnavailable, addr)
}

func TestHostCancellation(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t, fakedeepseek.KeepAliveStall(10*time.Millisecond))
	p := connectInProcess(t, srv, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	var last sdk.StreamChunk
	err := p.client.Stream(ctx, p.handle, userRequest("hi"), func(c sdk.StreamChunk) error { last = c; return nil })
	// Either the host sees its own cancellation, or the provider's canceled
	// error chunk wins the race to the host.
	if err == nil && (last.Type != sdk.ChunkError || last.Err.Kind != sdk.KindCanceled) {
		t.Fatalf("a canceled stream ended with %+v and no error", last)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("cancellation did not stop the stream promptly")
	}
}
