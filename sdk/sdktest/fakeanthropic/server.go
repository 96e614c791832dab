package fakeanthropic

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/harness-agent/harness/sdk/sdktest/internal/ssefake"
)

// Server is a running fake. Its URL is the base URL to configure
// (requests go to URL+"/v1/messages" and URL+"/v1/models").
//
// URL and Close come from the embedded ssefake.Base, Enqueue and Repeat
// from ssefake.Queue, Requests from ssefake.Log.
type Server struct {
	ssefake.Base
	ssefake.Queue[Response]
	ssefake.Log[Request]

	mu       sync.Mutex
	key      string
	models   []string
	minCache int64
	cached   map[string]bool
}

// Request is what the fake received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any // the JSON body decoded; nil when it was not JSON
	Raw    []byte         // the body as sent
	// Usage is the prompt accounting of a messages request: what the
	// fake reported (a scripted turn's own Usage aside).
	Usage Usage
	// Breakpoints is how many cache_control blocks the request carried.
	Breakpoints int
}

// DefaultModels is what GET /v1/models lists unless SetModels changes it.
var DefaultModels = []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}

// New starts a fake that answers message requests with queue, in order.
// It is closed when the test ends.
func New(tb testing.TB, queue ...Response) *Server {
	tb.Helper()
	s := &Server{models: DefaultModels, minCache: DefaultMinCacheTokens, cached: map[string]bool{}}
	s.Enqueue(queue...)
	ssefake.Start(&s.Base, tb, http.HandlerFunc(s.serveHTTP))
	return s
}

// RequireKey makes the fake check "x-api-key: key" and answer 401 like the
// API otherwise.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetModels sets the ids GET /v1/models lists.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = ids
}

// SetMinCacheTokens sets the shortest prefix that is cached (default
// DefaultMinCacheTokens).
func (s *Server) SetMinCacheTokens(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.minCache = n
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	raw, body, _ := ssefake.ReadBody(r)
	seq := ssefake.Add(&s.Log, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: raw}) + 1
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()

	if key != "" && r.Header.Get("X-Api-Key") != key {
		s.write(w, r, StatusError(http.StatusUnauthorized), nil)
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		s.write(w, r, HTTPError(http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required"), nil)
		return
	}
	switch {
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		s.listModels(w)
	case r.URL.Path != "/v1/messages":
		s.write(w, r, HTTPError(http.StatusNotFound, "not_found_error", "Not Found"), nil)
	case r.Method != http.MethodPost:
		s.write(w, r, HTTPError(http.StatusMethodNotAllowed, "invalid_request_error", "Method Not Allowed"), nil)
	default:
		s.messages(w, r, seq, raw)
	}
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request, seq int, raw []byte) {
	var fields map[string]json.RawMessage
	var req wireRequest
	if json.Unmarshal(raw, &fields) != nil || json.Unmarshal(raw, &req) != nil {
		s.write(w, r, HTTPError(http.StatusBadRequest, "invalid_request_error", "The request body is not valid JSON."), nil)
		return
	}
	p, err := parsePrompt(&req)
	if err != nil {
		s.write(w, r, HTTPError(http.StatusBadRequest, "invalid_request_error", err.Error()), nil)
		return
	}
	if msg := check(fields, &req, p); msg != "" {
		s.write(w, r, HTTPError(http.StatusBadRequest, "invalid_request_error", msg), nil)
		return
	}
	s.mu.Lock()
	usage := s.account(p)
	s.mu.Unlock()
	ssefake.Update(&s.Log, seq-1, func(logged *Request) { logged.Usage, logged.Breakpoints = usage, len(p.breakpoints) })
	resp, ok := ssefake.Next(&s.Queue)
	if !ok {
		s.write(w, r, HTTPError(http.StatusInternalServerError, "api_error", "fakeanthropic: no scripted response left for this request"), nil)
		return
	}
	var frames [][]byte
	if resp.turn != nil {
		model := req.Model
		if model == "" {
			model = "claude-sonnet-4-5-20250929"
		}
		frames = resp.turn.frames(seq, model, usage, resp.noStop)
	}
	s.write(w, r, resp, frames)
}

func (s *Server) listModels(w http.ResponseWriter) {
	s.mu.Lock()
	ids := append([]string(nil), s.models...)
	s.mu.Unlock()
	data := make([]map[string]any, len(ids))
	for i, id := range ids {
		data[i] = map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2025-10-01T00:00:00Z"}
	}
	page := map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil}
	if len(ids) > 0 {
		page["first_id"], page["last_id"] = ids[0], ids[len(ids)-1]
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(ssefake.Marshal(page))
}

// write sends resp. built holds the frames of a scripted turn.
func (s *Server) write(w http.ResponseWriter, r *http.Request, resp Response, built [][]byte) {
	frames := resp.frames
	if resp.turn != nil {
		frames = built
	}
	frames, stall := resp.plan(frames)
	stream := ssefake.Stream{Frames: frames, Drip: resp.drip, TruncateAfter: resp.truncateAfter}
	if stall {
		stream.Stall, stream.StallEvery = frame("ping", []byte(`{"type": "ping"}`)), resp.pingEvery
	}
	ssefake.Send(w, r, &s.Base, resp.status, resp.header, resp.body, stream)
}

// plan applies the event faults to the frames of a stream and says
// whether a ping stall follows them.
func (r Response) plan(frames [][]byte) ([][]byte, bool) {
	out := make([][]byte, 0, len(frames)+1)
	for i := 0; i <= len(frames); i++ {
		if i == r.errorAfter {
			return append(out, r.errorFrame), false
		}
		if r.stallAfter >= 0 && i == min(r.stallAfter, len(frames)) {
			return out, true
		}
		if i < len(frames) {
			out = append(out, frames[i])
		}
	}
	return out, false
}
