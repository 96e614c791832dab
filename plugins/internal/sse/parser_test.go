package sse_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/sse"
)

func TestLongLinesHaveNo64KiBLimit(t *testing.T) {
	t.Parallel()
	payload := strings.Repeat("x", 1<<20)
	got := parseAll(t, [][]byte{[]byte("data: " + payload + "\n\n")})
	if len(got.events) != 1 || got.events[0].Data != payload {
		t.Fatalf("a 1 MiB data line did not come through whole (%d events)", len(got.events))
	}
}

func TestCapIsEnforcedAndNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, what string
	}{
		{"one long line", "data: " + strings.Repeat("x", 200) + "\n\n", "line"},
		{"long line without end", strings.Repeat("y", 200), "line"},
		{"many short data lines", strings.Repeat("data: 0123456789\n", 20) + "\n", "event data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := sse.NewParser(&chunkReader{chunks: [][]byte{[]byte(tt.input)}}, sse.Options{MaxEventSize: 100})
			_, err := p.Next()
			var se *sse.SizeError
			if !errors.As(err, &se) || se.What != tt.what || se.Limit != 100 {
				t.Fatalf("got %v, want a %s SizeError with limit 100", err, tt.what)
			}
			if !strings.Contains(err.Error(), "100 bytes") {
				t.Errorf("message %q does not name the cap", err)
			}
			if _, again := p.Next(); !errors.Is(again, err) {
				t.Errorf("second Next returned %v, want the same error", again)
			}
		})
	}
}

func TestCommentsReachTheCallback(t *testing.T) {
	t.Parallel()
	var comments []string
	input := ": keep-alive\n\ndata: a\n:\n: second\r\n\n"
	p := sse.NewParser(strings.NewReader(input), sse.Options{OnComment: func(c string) { comments = append(comments, c) }})
	var events []sse.Event
	for {
		ev, err := p.Next()
		if err != nil {
			break
		}
		events = append(events, ev)
	}
	want := []string{" keep-alive", "", " second"}
	if strings.Join(comments, "|") != strings.Join(want, "|") || len(events) != 1 || events[0].Data != "a" {
		t.Fatalf("comments %q events %+v", comments, events)
	}
}

func TestUnterminatedTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		input    string
		wantTail string
		hasTail  bool
	}{
		{"data: a\n\ndata: [DONE]", "[DONE]", true},
		{"data: a\n\ndata: [DONE]\n", "[DONE]", true},
		{"data: a\n\ndata: [DONE]\r", "[DONE]", true},
		{"data: a\n\ndata: [DONE]\n\n", "", false},
		{"data: a\n\n: keep-alive\n", "", false},
		{"data: x\ndata: y", "x\ny", true},
	}
	for _, tt := range tests {
		p := sse.NewParser(strings.NewReader(tt.input), sse.Options{})
		var n int
		for {
			_, err := p.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		tail, ok := p.Unterminated()
		if ok != tt.hasTail || tail.Data != tt.wantTail {
			t.Errorf("%q: tail %q (%v), want %q (%v)", tt.input, tail.Data, ok, tt.wantTail, tt.hasTail)
		}
	}
}

type failingReader struct {
	data string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadErrorsPassThrough(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	p := sse.NewParser(&failingReader{data: "data: a\n\ndata: b", err: boom}, sse.Options{})
	ev, err := p.Next()
	if err != nil || ev.Data != "a" {
		t.Fatalf("first event %+v %v", ev, err)
	}
	if _, err := p.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the reader's error", err)
	}
	if _, ok := p.Unterminated(); ok {
		t.Error("a failed read must not produce an unterminated tail")
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	t.Parallel()
	got := parseAll(t, [][]byte{[]byte("data: a\xffb\n\n")})
	if len(got.events) != 1 || got.events[0].Data != "a\uFFFDb" {
		t.Fatalf("events %+v", got.events)
	}
}
