package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// display is how a writer shows text to people.
type display struct {
	color  bool // SGR styles
	live   bool // a terminal that redraws: the spinner may run
	width  int  // columns to wrap at; 0: do not wrap
	replay bool // sessions show: the person's own words are shown too
}

// Color modes of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// displayFor decides how w shows text: colour per --color (auto: a
// terminal, unless NO_COLOR is set or TERM is dumb), the spinner on a
// terminal that is not dumb, wrapping at the terminal's width (or $COLUMNS).
func (c *cli) displayFor(w io.Writer) display {
	tty := isTerminal(w)
	dumb := os.Getenv("TERM") == "dumb"
	d := display{live: tty && !dumb}
	switch c.color {
	case colorAlways:
		d.color = true
	case colorNever:
	default:
		d.color = tty && !dumb && os.Getenv("NO_COLOR") == "" // no-color.org: set and not empty
	}
	if tty {
		if f, ok := w.(interface{ Fd() uintptr }); ok {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
				d.width = cols
			}
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 && d.width == 0 {
		d.width = n
	}
	return d
}

func validColor(mode string) error {
	switch mode {
	case colorAuto, colorAlways, colorNever:
		return nil
	}
	return exitf(exitUsage, "--color=%q: use auto, always or never", mode)
}

// wrapLine breaks one line of text into lines of at most width runes, at
// spaces where it can and inside a word only when the word alone is wider.
// width 0 leaves the line whole.
func wrapLine(line string, width int) []string {
	if width <= 0 || utf8.RuneCountInString(line) <= width {
		return []string{line}
	}
	var out []string
	var cur []rune
	lastSpace := -1
	for _, r := range line {
		cur = append(cur, r)
		if r == ' ' {
			lastSpace = len(cur) - 1
		}
		if len(cur) <= width {
			continue
		}
		if lastSpace > 0 {
			out = append(out, strings.TrimRight(string(cur[:lastSpace]), " "))
			cur = append([]rune(nil), cur[lastSpace+1:]...)
		} else {
			out = append(out, string(cur[:width]))
			cur = append([]rune(nil), cur[width:]...)
		}
		lastSpace = -1
		for i, r := range cur {
			if r == ' ' {
				lastSpace = i
			}
		}
	}
	return append(out, string(cur))
}

// wrapper word-wraps streamed text at a width. The word at the end of a
// delta may go on in the next one, so it is held back until a space, a
// newline or a flush places it.
type wrapper struct {
	width int
	col   int
	word  []rune
	space bool // a space is due before the next word on this line
}

// write adds a delta; code styles what it writes.
func (w *wrapper) write(b *strings.Builder, delta, code string) {
	if w.width <= 0 {
		b.WriteString(styled(code, delta))
		return
	}
	var out strings.Builder
	for _, r := range delta {
		switch r {
		case '\n':
			w.place(&out)
			out.WriteByte('\n')
			w.col, w.space = 0, false
		case ' ':
			w.place(&out)
			w.space = w.col > 0
		default:
			w.word = append(w.word, r)
		}
	}
	b.WriteString(styled(code, out.String()))
}

// place writes the held word, on a new line when it does not fit.
func (w *wrapper) place(out *strings.Builder) {
	for len(w.word) > 0 {
		switch {
		case w.col > 0 && w.col+1+len(w.word) > w.width:
			out.WriteByte('\n')
			w.col = 0
		case w.space:
			out.WriteByte(' ')
			w.col++
		}
		w.space = false
		n := min(len(w.word), w.width)
		out.WriteString(string(w.word[:n]))
		w.col += n
		w.word = w.word[n:]
	}
}

// flush places the held word.
func (w *wrapper) flush(b *strings.Builder, code string) {
	if len(w.word) == 0 {
		return
	}
	var out strings.Builder
	w.place(&out)
	b.WriteString(styled(code, out.String()))
}

// breakLine ends the current line of streamed text.
func (w *wrapper) breakLine(b *strings.Builder) {
	b.WriteString("\n")
	w.col, w.space = 0, false
}

// styled wraps s in an SGR code; code "" (no colour) leaves it alone.
func styled(code, s string) string {
	if code == "" || s == "" {
		return s
	}
	return code + s + ansiReset
}

// elapsed is a duration as a person reads it next to a spinner: 4s, 1m05s.
func elapsed(secs int) string {
	if secs < 60 {
		return fmt.Sprintf("%ds", secs)
	}
	return fmt.Sprintf("%dm%02ds", secs/60, secs%60)
}
