package engine

// wildmatch reports whether text matches the gitignore glob pattern. It is a
// port of git's wildmatch.c (the matcher behind .gitignore) with WM_PATHNAME
// set: '*' and '?' never match '/', "**" between slashes (or at either end)
// matches any number of path segments, "[...]" is a bracket expression ('!' or
// '^' negates, POSIX classes such as [:alpha:] are understood) and '\' quotes
// the next byte. Bytes are compared exactly (no case folding), as git does by
// default on Linux and ripgrep does everywhere.
func wildmatch(pattern, text string) bool {
	m := wildMatcher{p: pattern, text: text}
	return m.dowild(0, 0) == wmMatch
}

// wildMatcher is one match in progress. Git's algorithm backtracks and can
// take exponential time on runs of '*' followed by a literal that fails
// ("*a*a*a*a*b" against "aaaa…c"). The result of dowild depends only on its
// two indexes, so past a budget of calls the results are memoized, which
// bounds the work by len(pattern) × len(text)² without costing the common
// case an allocation.
type wildMatcher struct {
	p, text string
	calls   int
	memo    map[int]int8 // (pi, ti) → result, once calls > memoAfter
}

const memoAfter = 256

func (m *wildMatcher) dowild(pi, ti int) int {
	m.calls++
	if m.calls > memoAfter && m.memo == nil {
		m.memo = make(map[int]int8)
	}
	if m.memo == nil {
		return m.match(pi, ti)
	}
	key := pi*(len(m.text)+1) + ti
	if r, ok := m.memo[key]; ok {
		return int(r)
	}
	r := m.match(pi, ti)
	m.memo[key] = int8(r)
	return r
}

// The outcomes of dowild, as in git: a plain failure lets the caller
// try the next split; the abort results cut whole subtrees of the search and
// are what keep the matcher from going exponential on runs of '*'.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// byteAt returns s[i], or 0 past the end; patterns containing NUL are refused
// when parsed, so 0 plays the part of C's string terminator.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func (m *wildMatcher) match(pi, ti int) int {
	p, text := m.p, m.text
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		tc := byteAt(text, ti)
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// A trailing backslash matches nothing (byteAt gives 0).
			pi++
			if byteAt(p, pi) != tc || pi >= len(p) {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			r, next, done := m.matchStar(pi, ti)
			if done {
				return r
			}
			// "*/": the star consumed the rest of a segment; resume the
			// loop at the slash in both pattern and text.
			pi, ti = next.pi, next.ti
		case '[':
			np, ok := matchBracket(p, pi, tc)
			if np < 0 {
				return wmAbortAll
			}
			if !ok || tc == '/' {
				return wmNoMatch
			}
			pi = np
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

type position struct{ pi, ti int }

// matchStar handles a '*' or "**" at p[pi]. It either decides the match
// (done) or, for a single '*' followed by '/', returns where the main loop
// resumes.
func (m *wildMatcher) matchStar(pi, ti int) (result int, next position, done bool) {
	p, text := m.p, m.text
	matchSlash := false
	start := pi
	pi++
	if byteAt(p, pi) == '*' {
		for byteAt(p, pi) == '*' {
			pi++
		}
		atSegmentStart := start == 0 || p[start-1] == '/'
		atSegmentEnd := pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && byteAt(p, pi+1) == '/')
		if atSegmentStart && atSegmentEnd {
			// "**/" may match nothing: foo/**/bar matches foo/bar.
			if pi < len(p) && p[pi] == '/' && m.dowild(pi+1, ti) == wmMatch {
				return wmMatch, position{}, true
			}
			matchSlash = true
		}
	}
	if pi == len(p) {
		// A trailing "**" matches everything, a trailing '*' only the rest
		// of the last segment.
		if !matchSlash && indexByteFrom(text, ti, '/') >= 0 {
			return wmNoMatch, position{}, true
		}
		return wmMatch, position{}, true
	}
	if !matchSlash && p[pi] == '/' {
		slash := indexByteFrom(text, ti, '/')
		if slash < 0 {
			return wmNoMatch, position{}, true
		}
		// The caller's loop increments both indexes past the slashes.
		return 0, position{pi: pi, ti: slash}, false
	}
	for ti <= len(text) {
		if ti == len(text) {
			break
		}
		if !isGlobSpecial(p[pi]) {
			// Skip ahead to the next occurrence of the literal that follows
			// the star; without "**" the star cannot cross a '/'.
			want := p[pi]
			for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != want {
				ti++
			}
			if ti == len(text) || text[ti] != want {
				return wmNoMatch, position{}, true
			}
		}
		r := m.dowild(pi, ti)
		if r != wmNoMatch {
			if !matchSlash || r != wmAbortToStarStar {
				return r, position{}, true
			}
		} else if !matchSlash && text[ti] == '/' {
			return wmAbortToStarStar, position{}, true
		}
		ti++
	}
	return wmAbortAll, position{}, true
}

// matchBracket evaluates the bracket expression that starts at p[pi] == '['
// against c. It returns the index of the closing ']' and whether c is in the
// set, or -1 when the expression is not terminated (git then aborts the
// whole match).
func matchBracket(p string, pi int, c byte) (int, bool) {
	pi++
	pc := byteAt(p, pi)
	negated := false
	if pc == '!' || pc == '^' {
		negated = true
		pi++
		pc = byteAt(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pi >= len(p) {
			return -1, false
		}
		switch {
		case pc == '\\':
			pi++
			if pi >= len(p) {
				return -1, false
			}
			pc = p[pi]
			if c == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']':
			pi++
			pc = p[pi]
			if pc == '\\' {
				pi++
				if pi >= len(p) {
					return -1, false
				}
				pc = p[pi]
			}
			if c <= pc && c >= prev {
				matched = true
			}
			pc = 0 // a range cannot start another range
		case pc == '[' && byteAt(p, pi+1) == ':':
			end := indexByteFrom(p, pi+2, ']')
			if end < 0 {
				return -1, false
			}
			if end == pi+2 || p[end-1] != ':' {
				// Not a class after all: "[:" is taken literally.
				if c == '[' {
					matched = true
				}
				break
			}
			in, known := inClass(p[pi+2:end-1], c)
			if !known {
				return -1, false
			}
			if in {
				matched = true
			}
			pi = end
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prev = pc
		pi++
		pc = byteAt(p, pi)
		if pi < len(p) && pc == ']' {
			break
		}
	}
	return pi, matched != negated
}

// inClass reports whether c belongs to the POSIX class name; known is false
// for an unknown name, which git treats as a malformed pattern.
func inClass(name string, c byte) (in, known bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isAlpha := isUpper || isLower
	isPunct := c > ' ' && c < 0x7f && !isAlpha && !isDigit
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < ' ' || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return c > ' ' && c < 0x7f, true
	case "lower":
		return isLower, true
	case "print":
		return c >= ' ' && c < 0x7f, true
	case "punct":
		return isPunct, true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func indexByteFrom(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
