package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/harness-agent/harness/sdk"
)

// DefaultOutputCap is the registry's safety net over one result. Each tool
// owns the shape of its output and pages it itself (the built-in tools stay
// well under this); the net only catches a source that does not, and says
// so where it cuts.
const DefaultOutputCap = 256 << 10

// Bounds of the source's own notes the net carries over from the part it
// cuts.
const (
	maxKeptNotes    = 8
	maxKeptNoteSize = 240
)

// capOutput keeps whole lines of the head and the tail of s, about
// maxBytes in all, and puts between them a line saying exactly how many
// bytes and lines the harness cut from tool's output and why. Notes of the
// source itself that fall in the cut part (lines starting with "[…" or
// "…", such as a terminal's own omission marker) are kept next to it, so
// the net never hides what a tool said about its output. Cuts fall on line
// boundaries where a line boundary is near, else on rune boundaries.
func capOutput(tool, s string, maxBytes int) string {
	if maxBytes <= 0 || len(s) <= maxBytes {
		return s
	}
	head := cutHead(s, maxBytes/2)
	tail := cutTail(s, len(s)-(maxBytes-head))
	cut := s[head:tail]
	var b strings.Builder
	b.Grow(maxBytes + 512)
	b.WriteString(s[:head])
	if head > 0 && s[head-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… the harness cut %d bytes (%d lines) of %s's output here: one tool result holds at most %d KiB …]\n",
		len(cut), strings.Count(cut, "\n"), tool, maxBytes>>10)
	for _, note := range sourceNotes(cut) {
		b.WriteString(note + "\n")
	}
	b.WriteString(s[tail:])
	return b.String()
}

// cutHead returns where a head of at most n bytes of s ends: after the
// last newline in its second half, else at a rune boundary.
func cutHead(s string, n int) int {
	if i := strings.LastIndexByte(s[:n], '\n'); i >= n/2 {
		return i + 1
	}
	return runeStart(s, n)
}

// cutTail returns where a tail starting at or after i begins: after the
// first newline in the next stretch as long as the tail itself, else at a
// rune boundary.
func cutTail(s string, i int) int {
	if i > 0 && s[i-1] == '\n' {
		return i
	}
	reach := (len(s) - i) / 2
	if j := strings.IndexByte(s[i:i+reach], '\n'); j >= 0 {
		return i + j + 1
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// sourceNotes returns the lines of cut that are notes of the source about
// its own output, at most maxKeptNotes, each at most maxKeptNoteSize bytes.
func sourceNotes(cut string) []string {
	var notes []string
	for line := range strings.Lines(cut) {
		line = strings.TrimRight(line, "\r\n")
		if !strings.HasPrefix(line, "[…") && !strings.HasPrefix(line, "…") {
			continue
		}
		if len(line) > maxKeptNoteSize {
			line = line[:runeStart(line, maxKeptNoteSize)] + "…"
		}
		notes = append(notes, line)
		if len(notes) == maxKeptNotes {
			break
		}
	}
	return notes
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// capPresentation caps the large text of a view the way content is capped,
// so an event never carries unbounded output.
func capPresentation(tool string, p sdk.Presentation, maxBytes int) sdk.Presentation {
	switch v := p.(type) {
	case sdk.TerminalView:
		v.Output = capOutput(tool, v.Output, maxBytes)
		return v
	case sdk.DiffView:
		v.Unified = capOutput(tool, v.Unified, maxBytes)
		return v
	case sdk.TextView:
		v.Text = capOutput(tool, v.Text, maxBytes)
		return v
	}
	return p
}
