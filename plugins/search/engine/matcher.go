package engine

import (
	"bytes"
	"regexp"
)

// lineMatcher finds matching lines in a file's content. A line is the bytes
// between two '\n' (a trailing '\r' stays part of the line while matching,
// as in ripgrep without --crlf). Each worker owns one lineMatcher, as the
// finders inside keep per-file state.
type lineMatcher interface {
	// nextLine returns the bounds [start, end) of the first matching line
	// that starts at or after from (always a line start), end excluding
	// the '\n'.
	nextLine(data []byte, from int) (start, end int, ok bool)
	// column returns the byte offset of the match in a matching line, used
	// to centre the excerpt of an overlong line.
	column(line []byte) int
	// reset prepares the matcher for a new file.
	reset()
}

// lineBounds returns the line around position i.
func lineBounds(data []byte, i int) (start, end int) {
	start = bytes.LastIndexByte(data[:i], '\n') + 1
	end = bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		return start, len(data)
	}
	return start, i + end
}

// literalMatcher matches lines containing a fixed string, exactly or
// ignoring case. It searches the whole buffer, not line by line: lines are
// only delimited around a hit.
type literalMatcher struct {
	find  finder
	index func(line []byte) int // the match in a line known to match
}

func (m *literalMatcher) nextLine(data []byte, from int) (int, int, bool) {
	i := m.find.next(data, from)
	if i < 0 {
		return 0, 0, false
	}
	start, end := lineBounds(data, i)
	return start, end, true
}

func (m *literalMatcher) column(line []byte) int { return max(m.index(line), 0) }
func (m *literalMatcher) reset()                 { m.find.reset() }

// everyLine matches every line (the empty literal, like rg "").
type everyLine struct{}

func (everyLine) nextLine(data []byte, from int) (int, int, bool) {
	if from >= len(data) {
		return 0, 0, false
	}
	start, end := lineBounds(data, from)
	return start, end, true
}

func (everyLine) column([]byte) int { return 0 }
func (everyLine) reset()            {}

// regexMatcher runs a regexp on single lines. With a finder (a literal every
// match must contain) only the lines holding a candidate are tried, which
// is what makes most searches fast; without one every line is tried.
type regexMatcher struct {
	re   *regexp.Regexp
	find finder // nil: no usable required literal
}

func (m *regexMatcher) nextLine(data []byte, from int) (int, int, bool) {
	for from < len(data) {
		var start, end int
		if m.find == nil {
			start, end = lineBounds(data, from)
		} else {
			i := m.find.next(data, from)
			if i < 0 {
				return 0, 0, false
			}
			start, end = lineBounds(data, i)
		}
		if m.re.Match(data[start:end]) {
			return start, end, true
		}
		from = end + 1
	}
	return 0, 0, false
}

func (m *regexMatcher) column(line []byte) int {
	if loc := m.re.FindIndex(line); loc != nil {
		return loc[0]
	}
	return 0
}

func (m *regexMatcher) reset() {
	if m.find != nil {
		m.find.reset()
	}
}
