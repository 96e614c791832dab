package sse_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/plugins/internal/sse"
)

// fixturesDir is <repo root>/testdata/fixtures, the repo root being the
// nearest folder above the test's working directory that holds go.mod.
func fixturesDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "fixtures")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// chunkReader hands out one chunk per Read, so chunk boundaries of a
// vector (a CR at the end of one chunk, an LF at the start of the next)
// reach the parser exactly as the vector splits them.
type chunkReader struct{ chunks [][]byte }

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.chunks) > 0 && len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	return n, nil
}

// splitings returns the chunkings every vector is fed in: as the vector
// gives it, in one piece, and one byte per Read.
func splitings(chunks []string) map[string][][]byte {
	whole := []byte(strings.Join(chunks, ""))
	var given, bytewise [][]byte
	for _, c := range chunks {
		given = append(given, []byte(c))
	}
	for i := range whole {
		bytewise = append(bytewise, whole[i:i+1])
	}
	return map[string][][]byte{"as-given": given, "whole": {whole}, "bytewise": bytewise}
}

type parsed struct {
	events []sse.Event
	parser *sse.Parser
}

func parseAll(t *testing.T, chunks [][]byte) parsed {
	t.Helper()
	p := sse.NewParser(&chunkReader{chunks: append([][]byte(nil), chunks...)}, sse.Options{})
	var out parsed
	out.parser = p
	for {
		ev, err := p.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		out.events = append(out.events, ev)
	}
}

// expectedEvent is the union of the expectation fields of both vector
// files: eventsource-parser writes event/id, WPT writes type/lastEventId.
type expectedEvent struct {
	Data             *string         `json:"data"`
	Event            *string         `json:"event"`
	Type             *string         `json:"type"`
	ID               *string         `json:"id"`
	LastEventID      *string         `json:"lastEventId"`
	ReconnectionTime json.RawMessage `json:"reconnectionTime"`
}

type vector struct {
	Name                      string          `json:"name"`
	Chunks                    []string        `json:"chunks"`
	Input                     *string         `json:"input"`
	InputExpanded             *string         `json:"input_expanded"`
	InputChunks               []string        `json:"input_chunks"`
	InputBytesHex             string          `json:"input_bytes_hex"`
	ServerSuffix              string          `json:"server_suffix"`
	ExpectEvents              []expectedEvent `json:"expect_events"`
	Expect                    string          `json:"expect"`
	ExpectReconnectionTimeMS  *int64          `json:"expect_reconnection_time_ms"`
	expectEventsPresent       bool
	expectReconnectionPresent bool
}

// inputChunks returns the exact input of a vector, server suffix included.
func (v vector) inputChunks(t *testing.T) []string {
	t.Helper()
	var chunks []string
	switch {
	case v.Chunks != nil:
		chunks = v.Chunks
	case v.InputChunks != nil:
		chunks = v.InputChunks
	case v.InputExpanded != nil:
		chunks = []string{*v.InputExpanded}
	case v.Input != nil:
		if strings.Contains(*v.Input, "<x*") {
			t.Fatalf("vector %q has an abbreviated input and no input_expanded", v.Name)
		}
		chunks = []string{*v.Input}
	case v.InputBytesHex != "":
		b, err := hex.DecodeString(v.InputBytesHex)
		if err != nil {
			t.Fatal(err)
		}
		chunks = []string{string(b)}
	default:
		t.Fatalf("vector %q has no input", v.Name)
	}
	if v.ServerSuffix != "" {
		chunks = append(chunks, v.ServerSuffix)
	}
	return chunks
}

func loadVectors(t *testing.T) map[string][]vector {
	t.Helper()
	dir := filepath.Join(fixturesDir(t), "sse")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no SSE vector files in %s (%v)", dir, err)
	}
	out := map[string][]vector{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// A file holds "vectors" and may hold further groups, each an object
		// with its own "vectors" list (WPT's vectors_exact_no_server_suffix).
		for key, val := range doc {
			var list []json.RawMessage
			switch {
			case key == "vectors":
				if err := json.Unmarshal(val, &list); err != nil {
					t.Fatalf("%s %s: %v", f, key, err)
				}
			case strings.HasPrefix(key, "vectors_"):
				var group struct {
					Vectors []json.RawMessage `json:"vectors"`
				}
				if err := json.Unmarshal(val, &group); err != nil {
					t.Fatalf("%s %s: %v", f, key, err)
				}
				list = group.Vectors
			default:
				continue
			}
			for _, rv := range list {
				var v vector
				if err := json.Unmarshal(rv, &v); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				var keys map[string]json.RawMessage
				_ = json.Unmarshal(rv, &keys)
				_, v.expectEventsPresent = keys["expect_events"]
				_, v.expectReconnectionPresent = keys["expect_reconnection_time_ms"]
				name := filepath.Base(f) + "/" + key
				out[name] = append(out[name], v)
			}
		}
	}
	return out
}

// TestVectors runs every vector of fixtures/sse/*.json, each in three
// chunkings.
func TestVectors(t *testing.T) {
	t.Parallel()
	groups := loadVectors(t)
	total := 0
	for group, vectors := range groups {
		for _, v := range vectors {
			total++
			for split, chunks := range splitings(v.inputChunks(t)) {
				t.Run(group+"/"+v.Name+"/"+split, func(t *testing.T) {
					got := parseAll(t, chunks)
					if v.expectEventsPresent {
						checkEvents(t, v.ExpectEvents, got)
					}
					if v.ExpectReconnectionTimeMS != nil {
						retry, ok := got.parser.Retry()
						if want := time.Duration(*v.ExpectReconnectionTimeMS) * time.Millisecond; !ok || retry != want {
							t.Errorf("reconnection time %v (set %v), want %v", retry, ok, want)
						}
					}
					if !v.expectEventsPresent {
						checkProse(t, v, got)
					}
				})
			}
		}
	}
	if total < 30 {
		t.Fatalf("only %d vectors found; the fixture files hold more", total)
	}
}

func checkEvents(t *testing.T, want []expectedEvent, got parsed) {
	t.Helper()
	if len(got.events) != len(want) {
		t.Fatalf("got %d events %+v, want %d", len(got.events), got.events, len(want))
	}
	for i, w := range want {
		ev := got.events[i]
		if w.Data != nil && ev.Data != *w.Data {
			t.Errorf("event %d data %q, want %q", i, ev.Data, *w.Data)
		}
		wantType := "message"
		switch {
		case w.Type != nil:
			wantType = *w.Type
		case w.Event != nil:
			wantType = *w.Event
		}
		if ev.Type != wantType {
			t.Errorf("event %d type %q, want %q", i, ev.Type, wantType)
		}
		if w.ID != nil && ev.ID != *w.ID {
			t.Errorf("event %d id %q, want %q", i, ev.ID, *w.ID)
		}
		if w.LastEventID != nil && ev.ID != *w.LastEventID {
			t.Errorf("event %d last event id %q, want %q", i, ev.ID, *w.LastEventID)
		}
		if len(w.ReconnectionTime) > 0 {
			retry, set := got.parser.Retry()
			var ms int64
			if err := json.Unmarshal(w.ReconnectionTime, &ms); err == nil {
				if !set || retry != time.Duration(ms)*time.Millisecond {
					t.Errorf("reconnection time %v (set %v), want %dms", retry, set, ms)
				}
			} else if string(w.ReconnectionTime) == `"unchanged"` && set {
				t.Errorf("reconnection time changed to %v, want unchanged", retry)
			}
		}
	}
}

// checkProse covers the vectors whose expectation is written as prose
// ("expect") rather than as a list of events.
func checkProse(t *testing.T, v vector, got parsed) {
	t.Helper()
	switch v.Name {
	case "partially invalid retry":
		// "reconnect-interval 1000, then error for '2000x', then event data 'x'":
		// WHATWG ignores the bogus value (no error event exists in this API).
		if len(got.events) != 1 || got.events[0].Data != "x" {
			t.Errorf("events %+v, want one with data x", got.events)
		}
		if retry, ok := got.parser.Retry(); !ok || retry != time.Second {
			t.Errorf("reconnection time %v (set %v), want 1s", retry, ok)
		}
	case "empty id resets":
		// "onId('42') once at first blank line; NUL id ignored; 'id:' sets
		// last event id to ''; no events dispatched (no data)".
		if len(got.events) != 0 {
			t.Errorf("events %+v, want none", got.events)
		}
		if id := got.parser.LastEventID(); id != "" {
			t.Errorf("final last event id %q, want empty", id)
		}
		whole := []byte(strings.Join(v.Chunks, ""))
		for _, prefix := range []string{"id: 42\n\n", "id: 42\n\nid: bad\x00id\n\n"} {
			if !strings.HasPrefix(string(whole), prefix) {
				t.Fatalf("vector input changed: %q", whole)
			}
			p := parseAll(t, [][]byte{[]byte(prefix)})
			if id := p.parser.LastEventID(); id != "42" {
				t.Errorf("after %q last event id %q, want 42", prefix, id)
			}
		}
	default:
		t.Fatalf("vector %q has a prose expectation this test does not know: %q", v.Name, v.Expect)
	}
}
