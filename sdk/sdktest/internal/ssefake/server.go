package ssefake

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Base is the HTTP server of a fake: its URL, and a closing channel that
// ends drips and stalls when the fake shuts down. Embed it: its URL and
// Close are the fake's. What only the fake itself calls is a function
// here, not a method, so that it is not promoted into the fake's API (so
// for Queue and Log too).
type Base struct {
	URL string

	ts      *httptest.Server
	closing chan struct{}
	once    sync.Once
}

// Start serves h on a free local port until the test ends.
func Start(b *Base, tb testing.TB, h http.Handler) {
	tb.Helper()
	b.closing = make(chan struct{})
	b.ts = httptest.NewServer(h)
	b.URL = b.ts.URL
	tb.Cleanup(b.Close)
}

// Listen serves h on addr ("127.0.0.1:0" picks a free port) outside a
// test; who names the fake in the error. The caller closes it.
func Listen(b *Base, who, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s: listen on %s: %w", who, addr, err)
	}
	b.closing = make(chan struct{})
	b.ts = httptest.NewUnstartedServer(h)
	_ = b.ts.Listener.Close()
	b.ts.Listener = ln
	b.ts.Start()
	b.URL = b.ts.URL
	return nil
}

// Close stops the fake; streams still running (stalls, drips) end.
func (b *Base) Close() {
	b.once.Do(func() {
		close(b.closing)
		b.ts.Close()
	})
}

// Queue is a fake's script of answers, safe for concurrent use. Embed it;
// its Enqueue and Repeat are the fake's.
type Queue[R any] struct {
	mu     sync.Mutex
	queue  []R
	repeat *R
}

// Enqueue appends responses to the queue.
func (q *Queue[R]) Enqueue(rs ...R) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = append(q.queue, rs...)
}

// Repeat makes r the answer to every request that finds the queue empty
// (without it such a request gets a 500 error saying the script ran out).
func (q *Queue[R]) Repeat(r R) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.repeat = &r
}

// Pop takes q's next queued answer; false when the queue is empty.
func Pop[R any](q *Queue[R]) (R, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		var zero R
		return zero, false
	}
	r := q.queue[0]
	q.queue = q.queue[1:]
	return r, true
}

// Repeated is the answer q's Repeat set; false when none.
func Repeated[R any](q *Queue[R]) (R, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.repeat == nil {
		var zero R
		return zero, false
	}
	return *q.repeat, true
}

// Next takes q's next queued answer, else the repeated one.
func Next[R any](q *Queue[R]) (R, bool) {
	if r, ok := Pop(q); ok {
		return r, true
	}
	return Repeated(q)
}

// Log is a fake's log of the requests it received, safe for concurrent
// use. Embed it; its Requests is the fake's.
type Log[R any] struct {
	mu       sync.Mutex
	requests []R
}

// Add logs r in l and returns its index.
func Add[R any](l *Log[R], r R) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests = append(l.requests, r)
	return len(l.requests) - 1
}

// Update changes the request l logged at index i.
func Update[R any](l *Log[R], i int, change func(*R)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	change(&l.requests[i])
}

// Last returns the request l logged last and how many it holds.
func Last[R any](l *Log[R]) (R, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.requests) == 0 {
		var zero R
		return zero, 0
	}
	return l.requests[len(l.requests)-1], len(l.requests)
}

// Requests returns every request received so far, in arrival order.
func (l *Log[R]) Requests() []R {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]R(nil), l.requests...)
}

// ReadBody reads a request's body: as sent, and decoded when it is a JSON
// object (nil otherwise).
func ReadBody(r *http.Request) (raw []byte, body map[string]any, read time.Time) {
	raw, _ = io.ReadAll(r.Body)
	read = time.Now() // before decoding: the fake's own work is not the client's
	if json.Unmarshal(raw, &body) != nil {
		body = nil
	}
	return raw, body, read
}

// Send writes an answer of the fake b: header, status (0: 200), then body
// whole (cut after s.TruncateAfter bytes) when it is not nil, else the
// stream s.
func Send(w http.ResponseWriter, r *http.Request, b *Base, status int, header http.Header, body []byte, s Stream) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if body != nil {
		Body(w, body, s.TruncateAfter)
		return
	}
	Flush(w)
	Serve(w, r, b.closing, s)
}

// WithHeader returns a copy of h with key set to value.
func WithHeader(h http.Header, key, value string) http.Header {
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(key, value)
	return h
}
