package fakedeepseek

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

// Response is one scripted answer. Build it with Fixture, SSE, Chunks,
// Scripted, HTTPError, StatusError or KeepAliveStall, then add faults with
// its methods; each method returns a modified copy.
type Response struct {
	status int
	header http.Header
	body   []byte   // the whole body of a non-stream answer
	frames [][]byte // stream answers: one SSE event per frame
	turn   *Turn    // built into frames per request

	drip           time.Duration
	truncateAfter  int // bytes; -1: never
	errorAfter     int // events; -1: never
	errorBody      []byte
	malformedAfter int // events; -1: never
	stallAfter     int // events; -1: never
	keepAlive      time.Duration
	noDone         bool
	endless        []byte // a frame sent again and again once the frames are out
}

func newStream(frames [][]byte) Response {
	return Response{status: http.StatusOK, header: sseHeader(), frames: frames,
		truncateAfter: -1, errorAfter: -1, malformedAfter: -1, stallAfter: -1}
}

func sseHeader() http.Header {
	return http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}, "Cache-Control": {"no-cache"}}
}

var doneFrame = []byte("data: [DONE]\n\n")

// Fixture loads a recorded stream: a *.chunks.jsonl file (one JSON chunk
// per line, replayed as data events followed by data: [DONE]) or any other
// file as a raw SSE body replayed byte for byte.
func Fixture(tb testing.TB, path string) Response {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("fakedeepseek: %v", err)
	}
	if strings.HasSuffix(path, ".chunks.jsonl") {
		var lines []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(line) != "" {
				lines = append(lines, line)
			}
		}
		return Chunks(lines...)
	}
	return SSE(b)
}

// SSE replays body byte for byte. It is cut into frames after every blank
// line ("\n\n"), so Drip, ErrorAfter and friends count its events.
func SSE(body []byte) Response {
	frames := ssefake.SplitFrames(body)
	r := newStream(frames)
	r.noDone = true // a raw body has its own ending
	return r
}

// Chunks streams each payload as "data: <payload>\n\n", then
// "data: [DONE]\n\n".
func Chunks(payloads ...string) Response {
	frames := make([][]byte, len(payloads))
	for i, p := range payloads {
		frames[i] = []byte("data: " + p + "\n\n")
	}
	return newStream(frames)
}

// Scripted answers with a turn built into realistic DeepSeek chunks.
func Scripted(turn Turn) Response {
	r := newStream(nil)
	r.turn = &turn
	return r
}

// HTTPError answers with status and a DeepSeek-shaped error body.
func HTTPError(status int, message, errType, code string) Response {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": errType, "param": nil, "code": code}})
	return Response{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body,
		truncateAfter: -1, errorAfter: -1, malformedAfter: -1, stallAfter: -1}
}

// StatusError answers with status and the error body DeepSeek sends for it
// (DeepSeek's documented error codes; others get a generic message).
func StatusError(status int) Response {
	switch status {
	case http.StatusBadRequest:
		return HTTPError(status, "Invalid request format", "invalid_request_error", "invalid_request_error")
	case http.StatusUnauthorized:
		return HTTPError(status, "Authentication Fails (no such user)", "authentication_error", "invalid_request_error")
	case http.StatusPaymentRequired:
		return HTTPError(status, "Insufficient Balance", "unknown_error", "invalid_request_error")
	case http.StatusUnprocessableEntity:
		return HTTPError(status, "Invalid parameters", "invalid_request_error", "invalid_request_error")
	case http.StatusTooManyRequests:
		return HTTPError(status, "Rate Limit Reached", "rate_limit_error", "rate_limit_exceeded")
	case http.StatusInternalServerError:
		return HTTPError(status, "Server Error", "server_error", "server_error")
	case http.StatusServiceUnavailable:
		return HTTPError(status, "Server Overloaded", "server_error", "server_overloaded")
	}
	return HTTPError(status, http.StatusText(status), "server_error", fmt.Sprint(status))
}

// KeepAliveStall answers 200 and then sends only ": keep-alive" comments,
// one every interval, until the client goes away.
func KeepAliveStall(interval time.Duration) Response {
	return newStream(nil).StallAfter(0, interval)
}

// Endless answers 200 and streams delta as text content, one data event
// every interval, until the client goes away: no finish_reason, no usage,
// no [DONE] (a runaway model, or a server that ignores max_tokens).
func Endless(delta string, interval time.Duration) Response {
	empty := ""
	b := &turnBuilder{id: "fake-endless", model: "deepseek-chat", created: time.Now().Unix()}
	b.add(textDelta{Role: "assistant", Content: &empty}, nil, nil)
	b.add(textDelta{Content: &delta}, nil, nil)
	r := newStream(b.frames[:1])
	r.endless, r.drip, r.noDone = b.frames[1], interval, true
	return r
}

// WithHeader sets a response header.
func (r Response) WithHeader(key, value string) Response {
	r.header = ssefake.WithHeader(r.header, key, value)
	return r
}

// WithRetryAfter sets the Retry-After header (seconds or an HTTP date).
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

// ErrorAfter sends, after n events, the error object
// {"error":{"message":…,"type":…,"param":null,"code":…}} as a data event
// and ends the stream there without [DONE], as OpenAI-compatible servers do.
func (r Response) ErrorAfter(n int, message, errType, code string) Response {
	r.errorAfter = n
	r.errorBody, _ = json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": errType, "param": nil, "code": code}})
	return r
}

// MalformedAfter inserts, after n events, a data event whose JSON is cut
// off, then goes on with the rest of the stream.
func (r Response) MalformedAfter(n int) Response {
	r.malformedAfter = n
	return r
}

// StallAfter sends n events, then only ": keep-alive" comments every
// interval until the client goes away.
func (r Response) StallAfter(n int, interval time.Duration) Response {
	r.stallAfter, r.keepAlive = n, interval
	return r
}

// WithoutDone leaves out the final "data: [DONE]" of a Chunks, Fixture
// (*.chunks.jsonl) or Scripted stream.
func (r Response) WithoutDone() Response {
	r.noDone = true
	return r
}

// FixturesDir returns the recorded fixtures folder, <repo root>/testdata/fixtures,
// the repo root being the nearest folder above the working directory that
// holds go.mod. Each of its folders has a SOURCES.md saying what every file
// exercises.
func FixturesDir(tb testing.TB) string {
	tb.Helper()
	return ssefake.FixturesDir(tb, "fakedeepseek")
}
