package anthropic_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

// TestHTTPErrors maps every status the Messages API documents onto the
// error kinds of DESIGN §6, with the server's message and retry-after.
func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resp       fakeanthropic.Response
		kind       sdk.ErrorKind
		says       string
		retryAfter time.Duration
	}{
		{fakeanthropic.StatusError(400), sdk.KindInvalidRequest, "at least one message is required (invalid_request_error)", 0},
		{fakeanthropic.HTTPError(400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API."), sdk.KindBilling, "credit balance", 0},
		{fakeanthropic.StatusError(401), sdk.KindAuth, "invalid x-api-key (authentication_error)", 0},
		{fakeanthropic.StatusError(403), sdk.KindAuth, "permission_error", 0},
		{fakeanthropic.StatusError(404), sdk.KindInvalidRequest, "not_found_error", 0},
		{fakeanthropic.StatusError(413), sdk.KindInvalidRequest, "request_too_large", 0},
		{fakeanthropic.StatusError(429).WithRetryAfter("7"), sdk.KindRateLimited, "rate_limit_error", 7 * time.Second},
		{fakeanthropic.StatusError(500), sdk.KindProviderUnavailable, "api_error", 0},
		{fakeanthropic.StatusError(529), sdk.KindProviderUnavailable, "Overloaded (overloaded_error)", 0},
		{fakeanthropic.StatusError(529).WithRetryAfter("3"), sdk.KindProviderUnavailable, "HTTP 529", 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+" "+tt.says, func(t *testing.T) {
			t.Parallel()
			srv := fakeanthropic.New(t, tt.resp)
			got := connectInProcess(t, srv, nil).stream(t, userRequest("hi"))
			wantError(t, got, tt.kind, tt.says, "request-id req_fake")
			if got.Err.RetryAfter != tt.retryAfter {
				t.Errorf("retry-after %v, want %v", got.Err.RetryAfter, tt.retryAfter)
			}
		})
	}
}

// TestStreamFaults covers every way a 200 stream can go wrong. No tool call
// of a failed stream is ever complete: the assembler never sees its end.
func TestStreamFaults(t *testing.T) {
	t.Parallel()
	call := fakeanthropic.Turn{Text: "Let me look.", ToolCalls: []fakeanthropic.ToolCall{{Name: "read_file", Input: `{"path":"main.go"}`}}}
	tests := []struct {
		name     string
		resp     fakeanthropic.Response
		kind     sdk.ErrorKind
		says     []string
		metered  bool // usage reported before the error
		anyCalls bool
		toolOpen bool // the stream died inside a tool call: its block never ends
	}{
		{"EOF before message_stop", fakeanthropic.Scripted(call).WithoutStop(), sdk.KindTruncated, []string{"without message_stop"}, true, true, false},
		{"connection dropped in a tool call", fakeanthropic.Fixture(t, fixture(t, "vercel-anthropic-json-tool.1.chunks.jsonl")).TruncateAfter(900),
			sdk.KindTruncated, []string{`in the middle of tool call "json"`}, true, true, true},
		{"overloaded mid-stream", fakeanthropic.Scripted(call).ErrorAfter(5, "overloaded_error", "Overloaded"), sdk.KindProviderUnavailable,
			[]string{"error event", "Overloaded (overloaded_error)"}, true, false, false},
		{"api_error mid-stream", fakeanthropic.Scripted(call).ErrorAfter(3, "api_error", "Internal server error"), sdk.KindProviderUnavailable,
			[]string{"api_error"}, true, false, false},
		{"rate limited mid-stream", fakeanthropic.Scripted(call).ErrorAfter(0, "rate_limit_error", "slow down"), sdk.KindRateLimited, []string{"slow down"}, false, false, false},
		{"unknown error type", fakeanthropic.Scripted(call).ErrorAfter(1, "brand_new_error", "new"), sdk.KindProviderUnavailable, []string{"brand_new_error"}, true, false, false},
		{"a second message_start of another message", fakeanthropic.Events(
			`{"type":"message_start","message":{"id":"msg_a","usage":{"input_tokens":3,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"terminal","input":{}}}`,
			`{"type":"message_start","message":{"id":"msg_b","usage":{"input_tokens":3,"output_tokens":1}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`,
			`{"type":"message_stop"}`), sdk.KindStreamViolation, []string{`message "msg_b" while message "msg_a"`}, true, true, true},
		{"content before message_start", fakeanthropic.Events(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, `{"type":"message_stop"}`),
			sdk.KindStreamViolation, []string{"before message_start"}, false, false, false},
		{"delta for a block that never started", fakeanthropic.Events(
			`{"type":"message_start","message":{"id":"msg_a","usage":{"input_tokens":3}}}`,
			`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"x"}}`, `{"type":"message_stop"}`),
			sdk.KindStreamViolation, []string{"block 2, which never started"}, true, false, false},
		{"delta after content_block_stop", fakeanthropic.Events(
			`{"type":"message_start","message":{"id":"msg_a","usage":{"input_tokens":3}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"terminal","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"rm -rf /\"}"}}`,
			`{"type":"message_stop"}`), sdk.KindStreamViolation, []string{"after its content_block_stop"}, true, true, false},
		{"text_delta in a tool block", fakeanthropic.Events(
			`{"type":"message_start","message":{"id":"msg_a","usage":{"input_tokens":3}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"terminal","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`, `{"type":"message_stop"}`),
			sdk.KindStreamViolation, []string{"a text_delta for block 0, which is a tool_use block"}, true, true, true},
		{"data that is not JSON", fakeanthropic.SSE([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\nevent: content_block_start\ndata: {broken\n\n")),
			sdk.KindStreamViolation, []string{"is not JSON"}, false, false, false},
		{"a JSON error body instead of a stream", fakeanthropic.HTTPError(200, "overloaded_error", "Overloaded").WithHeader("Content-Type", "application/json"),
			sdk.KindProviderUnavailable, []string{"with an error body", "Overloaded"}, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeanthropic.New(t, tt.resp)
			got := connectInProcess(t, srv, nil).stream(t, userRequest("hi"))
			wantError(t, got, tt.kind, tt.says...)
			if (got.UsageBeforeErr != nil) != tt.metered {
				t.Errorf("usage before the error: %+v, want metered=%v", got.UsageBeforeErr, tt.metered)
			}
			if !tt.anyCalls && len(got.Calls) > 0 {
				t.Errorf("tool calls started: %+v", got.Calls)
			}
			if tt.toolOpen && closedTool(got) {
				t.Errorf("the half tool call's block was closed: %+v", got.Chunks)
			}
		})
	}
}

// closedTool reports whether a tool-call block got its block-end.
func closedTool(r result) bool {
	tools := map[int]bool{}
	for _, c := range r.Chunks {
		switch {
		case c.Type == sdk.ChunkBlockStart && c.Kind == sdk.BlockToolCall:
			tools[c.Index] = true
		case c.Type == sdk.ChunkBlockEnd && tools[c.Index]:
			return true
		}
	}
	return false
}

// TestPingsDoNotCountAsData: a server that answers and then only pings
// misses the idle deadline.
func TestPingsDoNotCountAsData(t *testing.T) {
	t.Parallel()
	srv := fakeanthropic.New(t, fakeanthropic.Scripted(fakeanthropic.Turn{Text: "hello there"}).StallAfter(3, 20*time.Millisecond))
	got := connectInProcess(t, srv, map[string]any{"timeout_idle": "300ms"}).stream(t, userRequest("hi"))
	wantError(t, got, sdk.KindTimeout, "timeout_idle", "pings do not count")
}

// TestKeyNeverLeaks sends errors that echo the key to a provider logging
// at trace level and checks errors and logs for any piece of it.
func TestKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	secrets := []string{testKey, testKey[len(testKey)-12:], testKey[:20], "XYZW"}
	for _, resp := range []fakeanthropic.Response{
		fakeanthropic.HTTPError(400, "invalid_request_error", "key "+testKey+" is not allowed here"),
		fakeanthropic.HTTPError(401, "authentication_error", "invalid x-api-key ****"+testKey[len(testKey)-4:]),
		fakeanthropic.Scripted(fakeanthropic.Turn{Text: "x"}).ErrorAfter(2, "api_error", "upstream said "+testKey[13:]),
	} {
		var logs bytes.Buffer
		logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace, JSONFormat: true})
		srv := fakeanthropic.New(t, resp)
		p := connect(t, sdktest.ConnectProvider(t, anthropic.NewWithLogger(logger)), srv, sdk.PrepareRequest{}, nil)
		got := p.stream(t, userRequest("hi"))
		if got.Err == nil {
			t.Fatalf("no error: %v", got)
		}
		for _, s := range secrets {
			if strings.Contains(got.Err.Message, s) {
				t.Errorf("error leaks %q: %s", s, got.Err.Message)
			}
			if strings.Contains(logs.String(), s) {
				t.Errorf("logs leak %q:\n%s", s, logs.String())
			}
		}
		if !strings.Contains(got.Err.Message, "[REDACTED]") || !strings.Contains(logs.String(), "stream failed") {
			t.Errorf("error %q or logs not as expected:\n%s", got.Err.Message, logs.String())
		}
	}
}

// TestUnconfigured refuses to stream before a valid Configure.
func TestUnconfigured(t *testing.T) {
	t.Parallel()
	client := sdktest.ConnectProvider(t, anthropic.New())
	if err := client.Configure(context.Background(), []byte(`{"base_url":"ftp://x"}`)); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Fatalf("configure: %v", err)
	}
	h, err := client.PrepareCall(context.Background(), sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "claude-sonnet-4-5"}})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []sdk.StreamChunk
	if err := client.Stream(context.Background(), h, userRequest("hi"), func(c sdk.StreamChunk) error { chunks = append(chunks, c); return nil }); err != nil {
		t.Fatal(err)
	}
	wantError(t, assemble(t, chunks), sdk.KindInvalidRequest, "no valid configuration")
}
