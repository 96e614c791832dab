package sse_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/sse"
)

// FuzzParse checks the incremental parser against a direct transcription
// of the WHATWG algorithm over the whole input, for three chunkings of the
// same bytes.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"data: a\n\n",
		"data: a\r\rdata: b\r\n\r\n",
		"\ufeffdata: bom\n\n",
		"\xef\xbb\xbf\xef\xbb\xbfdata: 2\n\n",
		"event: x\nid: 1\nretry: 10\ndata\ndata:\n\n",
		": keep-alive\n\n",
		"id: a\x00b\ndata: x\n\n",
		"data: [DONE]",
	} {
		f.Add([]byte(seed), uint8(7))
	}
	if files, _ := filepath.Glob(filepath.Join(fixturesDir(f), "deepseek", "*.sse")); len(files) > 0 {
		for _, file := range files[:2] {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b, uint8(13))
			}
		}
	}
	f.Fuzz(func(t *testing.T, input []byte, step uint8) {
		want, wantID := reference(input)
		for _, chunks := range [][][]byte{{input}, split(input, 1), split(input, int(step)%17+1)} {
			p := sse.NewParser(&chunkReader{chunks: chunks}, sse.Options{})
			var got []sse.Event
			for {
				ev, err := p.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("error %v", err)
				}
				got = append(got, ev)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("input %q: got %+v, want %+v", input, got, want)
			}
			if p.LastEventID() != wantID {
				t.Fatalf("input %q: last event id %q, want %q", input, p.LastEventID(), wantID)
			}
		}
	})
}

func split(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}

// reference is the WHATWG algorithm written as plainly as possible, over
// the whole input at once.
func reference(input []byte) ([]sse.Event, string) {
	input = bytes.TrimPrefix(input, []byte("\xef\xbb\xbf"))
	text := strings.ToValidUTF8(string(input), "\uFFFD")
	var lines []string
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			break // an unterminated last line is never processed
		}
		lines = append(lines, text[:i])
		if strings.HasPrefix(text[i:], "\r\n") {
			text = text[i+2:]
		} else {
			text = text[i+1:]
		}
	}
	var (
		events           []sse.Event
		data, eventType  string
		idBuffer, lastID string
	)
	for _, line := range lines {
		if line == "" {
			lastID = idBuffer
			if data == "" {
				eventType = ""
				continue
			}
			typ := eventType
			if typ == "" {
				typ = "message"
			}
			events = append(events, sse.Event{Type: typ, Data: strings.TrimSuffix(data, "\n"), ID: lastID})
			data, eventType = "", ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			eventType = value
		case "data":
			data += value + "\n"
		case "id":
			if !strings.Contains(value, "\x00") {
				idBuffer = value
			}
		}
		// retry sets the reconnection time, which events do not carry.
	}
	return events, lastID
}
