package engine

import (
	"bytes"
	"slices"
)

// scan finds the matching lines of the file dirRel/name. It returns how
// many lines match and, as hits, the first of them that can still make the
// result (the collector says how many), with the file's path relative to
// the root, built only for a file with a match. A binary file has none.
// Lines are numbered lazily: newlines are counted only up to the hits that
// are kept.
func (w *worker) scan(dirRel, name string, content []byte) (total int, hits []Hit, rel string) {
	data := trimBOM(content)
	m := w.matcher
	keep := -1 // unknown until the first match
	lineNo, counted := 1, 0
	for from := 0; from < len(data); {
		start, end, ok := m.nextLine(data, from)
		if !ok {
			break
		}
		if keep < 0 {
			// Most files have no match: only those that do pay for the
			// pass over the whole content that finds a NUL byte.
			if isBinary(content) {
				return 0, nil, ""
			}
			rel = joinRel(dirRel, name)
			keep = w.s.coll.budget(rel)
		}
		total++
		if len(hits) < keep {
			lineNo += bytes.Count(data[counted:start], newline)
			counted = start
			hits = append(hits, w.hit(rel, data, start, end, lineNo))
		}
		from = end + 1
	}
	return total, hits, rel
}

var newline = []byte{'\n'}

func (w *worker) hit(rel string, data []byte, start, end, lineNo int) Hit {
	line := data[start:end]
	h := Hit{Path: rel, Line: lineNo, Text: lineText(line, w.matcher.column)}
	if n := w.s.contextLines; n > 0 {
		h.Before = linesBefore(data, start, n)
		h.After = linesAfter(data, end, n)
	}
	return h
}

// linesBefore returns up to n lines that precede the line starting at start.
func linesBefore(data []byte, start, n int) []string {
	var out []string
	for end := start - 1; end >= 0 && len(out) < n; {
		s := bytes.LastIndexByte(data[:end], '\n') + 1
		out = append(out, lineText(data[s:end], nil))
		end = s - 1
	}
	slices.Reverse(out)
	return out
}

// linesAfter returns up to n lines that follow the line ending at end.
func linesAfter(data []byte, end, n int) []string {
	var out []string
	for start := end + 1; start < len(data) && len(out) < n; {
		e := bytes.IndexByte(data[start:], '\n')
		if e < 0 {
			e = len(data)
		} else {
			e += start
		}
		out = append(out, lineText(data[start:e], nil))
		start = e + 1
	}
	return out
}
