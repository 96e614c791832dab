package fakedeepseek

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/internal/ssefake"
)

// Server is a running fake. Its URL is the base URL to configure
// (requests go to URL+"/chat/completions" or URL+"/v1/chat/completions").
//
// URL and Close come from the embedded ssefake.Base, Enqueue and Repeat
// from ssefake.Queue, Requests from ssefake.Log.
type Server struct {
	ssefake.Base
	ssefake.Queue[Response]
	ssefake.Log[Request]

	mu      sync.Mutex
	script  func(Request) Response
	key     string
	prompts [][]byte
}

// Request is what the fake received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any // the JSON body decoded; nil when it was not JSON
	Raw    []byte         // the body as sent
	// Received is when the body had been read; Answered when a scripted
	// or queued answer was ready and its writing began (the fake's own
	// work, prefix-cache accounting included, lies between the two; a
	// stream without delays is written within microseconds after). Zero
	// for an error answer before the script.
	Received, Answered time.Time
}

// New starts a fake that answers requests with queue, in order. It is
// closed when the test ends.
func New(tb testing.TB, queue ...Response) *Server {
	tb.Helper()
	s := &Server{}
	s.Enqueue(queue...)
	ssefake.Start(&s.Base, tb, http.HandlerFunc(s.serveHTTP))
	return s
}

// Start starts a fake outside a test, listening on addr ("127.0.0.1:0"
// picks a free port): a standalone server for benchmarks that drive other
// programs against it (bench/fakedeepseek). The caller closes it.
func Start(addr string, queue ...Response) (*Server, error) {
	s := &Server{}
	s.Enqueue(queue...)
	if err := ssefake.Listen(&s.Base, "fakedeepseek", addr, http.HandlerFunc(s.serveHTTP)); err != nil {
		return nil, err
	}
	return s, nil
}

// Script makes answer(request) the response to every request that finds
// the queue empty, in place of Repeat: a script that decides from what the
// client sent (for example, how many tool results its messages hold).
func (s *Server) Script(answer func(Request) Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = answer
}

// RequireKey makes the fake check "Authorization: Bearer key" and answer
// 401 like DeepSeek otherwise, echoing the last four characters of the key
// it got ("Your api key: ****abcd is invalid").
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	raw, body, read := ssefake.ReadBody(r)
	index := ssefake.Add(&s.Log, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: raw, Received: read})
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()

	if r.URL.Path != "/chat/completions" && r.URL.Path != "/v1/chat/completions" {
		s.write(w, r, HTTPError(http.StatusNotFound, "Not Found: "+r.URL.Path, "invalid_request_error", "not_found"), nil)
		return
	}
	if r.Method != http.MethodPost {
		s.write(w, r, HTTPError(http.StatusMethodNotAllowed, "Method Not Allowed", "invalid_request_error", "method_not_allowed"), nil)
		return
	}
	if key != "" {
		if resp, ok := checkKey(r.Header.Get("Authorization"), key); !ok {
			s.write(w, r, resp, nil)
			return
		}
	}
	var req struct {
		Model    string          `json:"model"`
		Messages json.RawMessage `json:"messages"`
		Tools    json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(raw, &req)
	prompt := append(append([]byte(nil), req.Tools...), req.Messages...)

	s.mu.Lock()
	hit := s.cacheHit(prompt)
	s.prompts = append(s.prompts, prompt)
	script := s.script
	s.mu.Unlock()
	resp, ok := ssefake.Pop(&s.Queue)
	_, seq := ssefake.Last(&s.Log)
	switch {
	case !ok && script != nil:
		// This request, not the last one logged: a client sends some at
		// once (Crush asks for a title beside its first turn).
		resp, ok = script(s.Requests()[index]), true
	case !ok:
		resp, ok = ssefake.Repeated(&s.Queue)
	}
	if !ok {
		s.write(w, r, HTTPError(http.StatusInternalServerError, "fakedeepseek: no scripted response left for this request", "server_error", "fakedeepseek_queue_empty"), nil)
		return
	}
	var frames [][]byte
	if resp.turn != nil {
		model := req.Model
		if model == "" {
			model = "deepseek-chat"
		}
		frames = resp.turn.frames(seq, model, promptTokens(prompt), hit)
	}
	// Stamped before the write: once the client has the answer, this
	// process may not run again before the client's next request arrives.
	ssefake.Update(&s.Log, index, func(logged *Request) { logged.Answered = time.Now() })
	s.write(w, r, resp, frames)
}

func checkKey(auth, key string) (Response, bool) {
	got, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || got == "" {
		return HTTPError(http.StatusUnauthorized, "Authentication Fails (auth header format should be Bearer sk-...)", "authentication_error", "invalid_request_error"), false
	}
	if got == key {
		return Response{}, true
	}
	tail := got
	if len(tail) > 4 {
		tail = tail[len(tail)-4:]
	}
	return HTTPError(http.StatusUnauthorized, "Authentication Fails, Your api key: ****"+tail+" is invalid", "authentication_error", "invalid_request_error"), false
}

// write sends resp. built holds the frames of a scripted turn.
func (s *Server) write(w http.ResponseWriter, r *http.Request, resp Response, built [][]byte) {
	frames := resp.frames
	if resp.turn != nil {
		frames = built
	}
	frames, stall := resp.plan(frames)
	stream := ssefake.Stream{Frames: frames, Drip: resp.drip, TruncateAfter: resp.truncateAfter}
	switch {
	case resp.endless != nil:
		stream.Stall, stream.StallEvery = resp.endless, resp.drip
	case stall:
		stream.Stall, stream.StallEvery = []byte(": keep-alive\n\n"), resp.keepAlive
	}
	ssefake.Send(w, r, &s.Base, resp.status, resp.header, resp.body, stream)
}

// plan applies the event faults to the frames of a stream and says
// whether a keep-alive stall follows them.
func (r Response) plan(frames [][]byte) ([][]byte, bool) {
	out := make([][]byte, 0, len(frames)+2)
	for i := 0; i <= len(frames); i++ {
		if i == r.malformedAfter {
			out = append(out, []byte(`data: {"id":"fake-broken","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"`+"\n\n"))
		}
		if i == r.errorAfter {
			return append(out, append(append([]byte("data: "), r.errorBody...), '\n', '\n')), false
		}
		if r.stallAfter >= 0 && i == min(r.stallAfter, len(frames)) {
			return out, true
		}
		if i < len(frames) {
			out = append(out, frames[i])
		}
	}
	if !r.noDone {
		out = append(out, doneFrame)
	}
	return out, false
}
