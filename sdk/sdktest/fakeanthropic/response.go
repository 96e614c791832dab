package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/internal/ssefake"
)

// Response is one scripted answer. Build it with Fixture, Events, SSE,
// Scripted, HTTPError or StatusError, then add faults with its methods;
// each method returns a modified copy.
type Response struct {
	status int
	header http.Header
	body   []byte   // the whole body of a non-stream answer
	frames [][]byte // stream answers: one SSE event per frame
	turn   *Turn    // built into frames per request

	drip          time.Duration
	truncateAfter int // bytes; -1: never
	errorAfter    int // events; -1: never
	errorFrame    []byte
	stallAfter    int // events; -1: never
	pingEvery     time.Duration
	noStop        bool
}

func newStream(frames [][]byte) Response {
	return Response{status: http.StatusOK, header: sseHeader(), frames: frames, truncateAfter: -1, errorAfter: -1, stallAfter: -1}
}

func sseHeader() http.Header {
	return http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}, "Cache-Control": {"no-cache"}}
}

// frame frames one event as the API does.
func frame(typ string, data []byte) []byte {
	return append(append([]byte("event: "+typ+"\ndata: "), data...), '\n', '\n')
}

// Fixture loads a recorded stream: a *.chunks.jsonl file (one JSON event
// per line, each sent as "event: <its type>" + "data: <the line>", byte for
// byte, nothing added at the end) or any other file as a raw SSE body
// replayed byte for byte.
func Fixture(tb testing.TB, path string) Response {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("fakeanthropic: %v", err)
	}
	if !strings.HasSuffix(path, ".chunks.jsonl") {
		return SSE(b)
	}
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	return Events(lines...)
}

// Events streams each JSON payload as one event named by its "type" field
// ("message" when it has none).
func Events(payloads ...string) Response {
	frames := make([][]byte, len(payloads))
	for i, p := range payloads {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(p), &head) != nil || head.Type == "" {
			head.Type = "message"
		}
		frames[i] = frame(head.Type, []byte(p))
	}
	return newStream(frames)
}

// SSE replays body byte for byte. It is cut into frames after every blank
// line ("\n\n"), so Drip, ErrorAfter and friends count its events.
func SSE(body []byte) Response {
	frames := ssefake.SplitFrames(body)
	return newStream(frames)
}

// Scripted answers with a turn built into realistic events.
func Scripted(turn Turn) Response {
	r := newStream(nil)
	r.turn = &turn
	return r
}

// HTTPError answers with status and an Anthropic-shaped error body.
func HTTPError(status int, errType, message string) Response {
	return Response{status: status, header: http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_fake"}},
		body: errorBody(errType, message), truncateAfter: -1, errorAfter: -1, stallAfter: -1}
}

func errorBody(errType, message string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": message}, "request_id": "req_fake"})
	return b
}

// StatusError answers with status and the error type and message the API
// documents for it (https://docs.anthropic.com/en/api/errors).
func StatusError(status int) Response {
	switch status {
	case http.StatusBadRequest:
		return HTTPError(status, "invalid_request_error", "messages: at least one message is required")
	case http.StatusUnauthorized:
		return HTTPError(status, "authentication_error", "invalid x-api-key")
	case http.StatusForbidden:
		return HTTPError(status, "permission_error", "Your API key does not have permission to use the specified resource.")
	case http.StatusNotFound:
		return HTTPError(status, "not_found_error", "model: claude-nonexistent")
	case http.StatusRequestEntityTooLarge:
		return HTTPError(status, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
	case http.StatusTooManyRequests:
		return HTTPError(status, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
	case http.StatusInternalServerError:
		return HTTPError(status, "api_error", "Internal server error")
	case 529:
		return HTTPError(status, "overloaded_error", "Overloaded")
	}
	return HTTPError(status, "api_error", fmt.Sprintf("HTTP %d", status))
}

// WithHeader sets a response header.
func (r Response) WithHeader(key, value string) Response {
	r.header = ssefake.WithHeader(r.header, key, value)
	return r
}

// WithRetryAfter sets the retry-after header (seconds or an HTTP date).
func (r Response) WithRetryAfter(value string) Response { return r.WithHeader("Retry-After", value) }

// TruncateAfter sends only the first n bytes of the body, then drops the
// connection without ending the response.
func (r Response) TruncateAfter(n int) Response {
	r.truncateAfter = n
	return r
}

// Drip waits delay before every event (frame) of the stream.
func (r Response) Drip(delay time.Duration) Response {
	r.drip = delay
	return r
}

// ErrorAfter sends, after n events, an "event: error" with
// {"type":"error","error":{"type":errType,"message":message}} and ends the
// stream there, as the API does when it is overloaded mid-stream.
func (r Response) ErrorAfter(n int, errType, message string) Response {
	r.errorAfter = n
	r.errorFrame = frame("error", errorBody(errType, message))
	return r
}

// StallAfter sends n events, then only ping events every interval until
// the client goes away.
func (r Response) StallAfter(n int, interval time.Duration) Response {
	r.stallAfter, r.pingEvery = n, interval
	return r
}

// WithoutStop leaves out the final message_stop of a Scripted stream.
func (r Response) WithoutStop() Response {
	r.noStop = true
	return r
}

// FixturesDir returns the recorded fixtures folder, <repo root>/testdata/fixtures,
// the repo root being the nearest folder above the working directory that
// holds go.mod. Each of its folders has a SOURCES.md saying what every file
// exercises.
func FixturesDir(tb testing.TB) string {
	tb.Helper()
	return ssefake.FixturesDir(tb, "fakeanthropic")
}
