// Package ssefake holds what the fake LLM servers of sdk/sdktest
// (fakedeepseek, fakeanthropic) share below their wire formats: writing a
// text/event-stream body frame by frame with the faults a test asks for
// (a delay before every frame, a connection dropped after N bytes, a stall
// that sends only keep-alives), JSON encoded as the APIs encode it, text
// cut into delta-sized pieces, the folder of recorded fixtures, and the
// server plumbing (Base: URL and Close; Queue: Enqueue and Repeat; Log:
// Requests).
package ssefake

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"
)

// Stream is an event-stream body to send after the status line.
type Stream struct {
	Frames        [][]byte
	Drip          time.Duration // wait before every frame
	TruncateAfter int           // drop the connection after this many bytes; -1: never
	// Stall, when set, is sent every StallEvery after the frames until the
	// client goes away (": keep-alive\n\n", a ping event).
	Stall      []byte
	StallEvery time.Duration
}

// Serve writes the stream. closing ends drips and stalls when the fake
// shuts down.
func Serve(w http.ResponseWriter, r *http.Request, closing <-chan struct{}, s Stream) {
	written := 0
	for _, f := range s.Frames {
		if s.Drip > 0 && !Wait(r, closing, s.Drip) {
			return
		}
		if s.TruncateAfter >= 0 && written+len(f) > s.TruncateAfter {
			_, _ = w.Write(f[:s.TruncateAfter-written])
			Flush(w)
			panic(http.ErrAbortHandler)
		}
		_, _ = w.Write(f)
		Flush(w)
		written += len(f)
	}
	if s.Stall == nil {
		return
	}
	for Wait(r, closing, s.StallEvery) {
		if _, err := w.Write(s.Stall); err != nil {
			return
		}
		Flush(w)
	}
}

// Body writes a whole body, or only its first truncateAfter bytes before
// dropping the connection (truncateAfter < 0: never).
func Body(w http.ResponseWriter, body []byte, truncateAfter int) {
	if truncateAfter >= 0 && truncateAfter < len(body) {
		_, _ = w.Write(body[:truncateAfter])
		Flush(w)
		panic(http.ErrAbortHandler)
	}
	_, _ = w.Write(body)
}

// Wait waits d; false when the client went away or the fake is closing.
func Wait(r *http.Request, closing <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-closing:
		return false
	}
}

// Flush sends what was written so far.
func Flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// SplitFrames cuts a raw body into frames after every blank line ("\n\n").
func SplitFrames(body []byte) [][]byte {
	var frames [][]byte
	for len(body) > 0 {
		i := bytes.Index(body, []byte("\n\n"))
		if i < 0 {
			frames = append(frames, body)
			break
		}
		frames = append(frames, body[:i+2])
		body = body[i+2:]
	}
	return frames
}

// Marshal encodes v as the APIs do: no HTML escaping, no newline.
func Marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Fragments cuts s into pieces of n characters (never inside a UTF-8
// sequence).
func Fragments(s string, n int) []string {
	var out []string
	for s != "" {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// FixturesDir returns <repo root>/testdata/fixtures, the repo root being
// the nearest folder above the working directory that holds go.mod. who
// names the caller in failures.
func FixturesDir(tb testing.TB, who string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			fixtures := filepath.Join(dir, "testdata", "fixtures")
			if _, err := os.Stat(fixtures); err != nil {
				tb.Fatalf("%s: recorded fixtures not found in the repository: %v", who, err)
			}
			return fixtures
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("%s: no go.mod above the working directory", who)
		}
		dir = parent
	}
}
