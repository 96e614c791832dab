package readfile

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceLines is the obvious, whole-file way to split and cut lines.
func referenceLines(s string, max int) []line {
	if s == "" {
		return nil
	}
	parts := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	lines := make([]line, len(parts))
	for i, p := range parts {
		crlf := strings.HasSuffix(p, "\r")
		p = strings.TrimSuffix(p, "\r")
		text := p
		if len(text) > max {
			text = text[:runeCut([]byte(text), max)]
		}
		lines[i] = line{text: []byte(text), size: len(p), crlf: crlf}
	}
	return lines
}

// FuzzLines checks the streaming line reader against referenceLines with
// a buffer small enough that long lines arrive in pieces.
func FuzzLines(f *testing.F) {
	for _, seed := range []string{"", "\n", "a", "a\nb", "a\r\nb\r\n", "\r\n\r", strings.Repeat("é", 40) + "\r\n", strings.Repeat("x", 17) + "\r\n"} {
		f.Add(seed, 7)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 64 {
			return
		}
		lr := &lineReader{r: bufio.NewReaderSize(strings.NewReader(s), 16)}
		for i, want := range referenceLines(s, max) {
			got, err := lr.next(max)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if string(got.text) != string(want.text) || got.size != want.size || got.crlf != want.crlf {
				t.Fatalf("line %d: got %q/%d/%v, want %q/%d/%v", i+1, got.text, got.size, got.crlf, want.text, want.size, want.crlf)
			}
			if utf8.ValidString(s) && !utf8.Valid(got.text) {
				t.Fatalf("line %d: cut inside a rune: %q", i+1, got.text)
			}
		}
		if _, err := lr.next(max); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last line: %v", err)
		}
	})
}

func TestCountLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		limit    int64
		lines    int
		complete bool
	}{
		{"", 100, 0, true},
		{"a", 100, 1, true},
		{"a\n", 100, 1, true},
		{"a\nb", 100, 2, true},
		{strings.Repeat("a\n", 100_000), 1000, -1, false}, // stops early: any count
	}
	for _, tt := range tests {
		lines, complete, err := countLines(strings.NewReader(tt.in), tt.limit)
		if err != nil || (tt.lines >= 0 && lines != tt.lines) || complete != tt.complete {
			t.Errorf("countLines(%.10q, %d) = %d, %v, %v; want %d, %v", tt.in, tt.limit, lines, complete, err, tt.lines, tt.complete)
		}
	}
}
