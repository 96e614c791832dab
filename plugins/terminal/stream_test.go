package terminal

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestOutputStreamsKeepCharactersWhole(t *testing.T) {
	t.Parallel()
	var events []string
	o := newOutputStreams(func(stream, text string) { events = append(events, stream+":"+text) })
	r, w := io.Pipe()
	o.read("stdout", r)
	// "€" split over two writes: no event may carry half of it.
	for _, part := range [][]byte{[]byte("a\xe2\x82"), []byte("\xac b")} {
		if _, err := w.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	out := o.finish()
	if out != "a€ b" {
		t.Errorf("captured %q", out)
	}
	if got := strings.Join(events, "|"); !strings.HasPrefix(got, "stdout:") || strings.ContainsRune(got, '\uFFFD') ||
		strings.ReplaceAll(got, "|stdout:", "") != "stdout:a€ b" {
		t.Errorf("events %q", events)
	}
}

func TestOutputStreamsCoalesceLargeOutput(t *testing.T) {
	t.Parallel()
	var events, total int
	o := newOutputStreams(func(_, text string) {
		events++
		total += len(text)
		if len(text) > flushSize+readSize {
			t.Errorf("an event of %d bytes", len(text))
		}
	})
	o.read("stdout", bytes.NewReader(bytes.Repeat([]byte("x"), 1<<20)))
	o.finish()
	if total != 1<<20 {
		t.Errorf("streamed %d bytes", total)
	}
	if events > (1<<20)/flushSize+1 {
		t.Errorf("%d events for 1 MiB: writes were not coalesced", events)
	}
}
