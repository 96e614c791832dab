package engine

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// finder locates candidates in a file's content. next returns the smallest
// candidate position at or after from, or -1. A candidate is a byte offset
// inside the line to test; finders never skip a real match.
type finder interface {
	next(data []byte, from int) int
	// reset prepares the finder for a new file (finders may cache
	// positions); each worker owns its own finders.
	reset()
}

// literalFinder finds exact occurrences of a needle of two or more bytes. It
// scans for the needle's rarest byte with bytes.IndexByte (vectorized in the
// Go runtime), checks the second rarest byte, then compares the whole needle.
// On text where the rare byte turns out common it hands the rest of the
// buffer to bytes.Index, whose own fallback is a vectorized brute force.
type literalFinder struct {
	needle     []byte
	rare1      byte
	off1       int
	rare2      byte
	off2       int
	useIndex   bool // the rare byte proved common in this file
	candidates int
	scanned    int
}

func newLiteralFinder(needle []byte) *literalFinder {
	f := &literalFinder{needle: needle}
	f.off1, f.off2 = rarestTwo(needle)
	f.rare1, f.rare2 = needle[f.off1], needle[f.off2]
	return f
}

// rarestTwo returns the offsets of the rarest byte of needle and of the
// rarest among the other distinct bytes (or the same offset when needle
// has a single distinct byte).
func rarestTwo(needle []byte) (int, int) {
	first := 0
	for i, b := range needle {
		if byteRank[b] < byteRank[needle[first]] {
			first = i
		}
	}
	second := -1
	for i, b := range needle {
		if b == needle[first] {
			continue
		}
		if second < 0 || byteRank[b] < byteRank[needle[second]] {
			second = i
		}
	}
	if second < 0 {
		second = first
	}
	return first, second
}

func (f *literalFinder) reset() {
	f.useIndex, f.candidates, f.scanned = false, 0, 0
}

// The rare-byte loop pays for a call into IndexByte per candidate; once the
// candidates come on average closer than minSkip bytes apart, bytes.Index is
// faster.
const (
	minCandidates = 64
	minSkip       = 64
)

func (f *literalFinder) next(data []byte, from int) int {
	n := len(f.needle)
	i := from
	for !f.useIndex {
		last := len(data) - n // the last position where the needle fits
		if i > last {
			return -1
		}
		j := bytes.IndexByte(data[i+f.off1:last+f.off1+1], f.rare1)
		if j < 0 {
			return -1
		}
		f.scanned += j + 1
		i += j
		if data[i+f.off2] == f.rare2 && bytes.Equal(data[i:i+n], f.needle) {
			return i
		}
		i++
		f.candidates++
		if f.candidates >= minCandidates && f.scanned < f.candidates*minSkip {
			f.useIndex = true
		}
	}
	if i > len(data) {
		return -1
	}
	j := bytes.Index(data[i:], f.needle)
	if j < 0 {
		return -1
	}
	return i + j
}

// byteFinder finds a single byte.
type byteFinder struct{ b byte }

func (f byteFinder) next(data []byte, from int) int {
	if from >= len(data) {
		return -1
	}
	j := bytes.IndexByte(data[from:], f.b)
	if j < 0 {
		return -1
	}
	return from + j
}

func (byteFinder) reset() {}

// caselessFinder proposes candidates for a case-insensitive literal: the
// positions of one anchor byte of the literal in either case. The anchor is
// an ASCII byte whose case-folding orbit is ASCII only (so not k or s, which
// fold with the Kelvin sign and the long s), which makes the candidates a
// superset of the real matches; the regexp then decides.
type caselessFinder struct {
	one, other byte // the two case variants of the anchor (equal for a non-letter)
	// Cached next position of each variant, len(data) when there is none.
	nextOne, nextOther int
	valid              bool
}

func (f *caselessFinder) reset() { f.valid = false }

func (f *caselessFinder) next(data []byte, from int) int {
	if !f.valid || f.nextOne < from {
		f.nextOne = indexFrom(data, from, f.one)
	}
	if !f.valid || f.nextOther < from {
		f.nextOther = indexFrom(data, from, f.other)
	}
	f.valid = true
	i := min(f.nextOne, f.nextOther)
	if i >= len(data) {
		return -1
	}
	return i
}

// caselessLiteralFinder finds exact case-insensitive occurrences of an
// ASCII needle whose letters fold only within ASCII (see asciiFoldPair):
// then a match has the needle's length and its bytes line up with the
// needle's, so comparing with ASCII case folding is exact. It proposes the
// positions of the anchor byte and confirms each.
type caselessLiteralFinder struct {
	needle []byte // lower case
	anchor caselessFinder
	off    int // offset of the anchor in needle
}

// newCaselessLiteralFinder returns nil when needle does not qualify.
func newCaselessLiteralFinder(needle []byte) *caselessLiteralFinder {
	lower := make([]byte, len(needle))
	for i, b := range needle {
		if _, _, safe := asciiFoldPair(b); !safe {
			return nil
		}
		lower[i] = toLowerASCII(b)
	}
	one, other, _ := caselessAnchor(needle)
	off := bytes.IndexByte(lower, toLowerASCII(one))
	return &caselessLiteralFinder{needle: lower, anchor: caselessFinder{one: one, other: other}, off: off}
}

func (f *caselessLiteralFinder) reset() { f.anchor.reset() }

func (f *caselessLiteralFinder) next(data []byte, from int) int {
	for i := from + f.off; ; i++ {
		i = f.anchor.next(data, i)
		if i < 0 {
			return -1
		}
		start := i - f.off
		if start+len(f.needle) > len(data) {
			return -1
		}
		if equalFoldASCII(data[start:start+len(f.needle)], f.needle) {
			return start
		}
	}
}

// index returns the first occurrence in line, or -1.
func (f *caselessLiteralFinder) index(line []byte) int {
	for i := 0; i+len(f.needle) <= len(line); i++ {
		if equalFoldASCII(line[i:i+len(f.needle)], f.needle) {
			return i
		}
	}
	return -1
}

// equalFoldASCII reports whether s equals the lower-case lower, ignoring
// ASCII case.
func equalFoldASCII(s, lower []byte) bool {
	for i, b := range s {
		if toLowerASCII(b) != lower[i] {
			return false
		}
	}
	return true
}

func toLowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + ('a' - 'A')
	}
	return b
}

// indexFrom returns the position of b at or after from, or len(data).
func indexFrom(data []byte, from int, b byte) int {
	if from >= len(data) {
		return len(data)
	}
	if j := bytes.IndexByte(data[from:], b); j >= 0 {
		return from + j
	}
	return len(data)
}

// caselessAnchor picks the anchor byte of a case-insensitive literal: the
// rarest byte (counting its more common case) whose case variants are all
// ASCII. ok is false when the literal has none (only non-ASCII, k and s).
func caselessAnchor(lit []byte) (one, other byte, ok bool) {
	best := -1
	for _, b := range lit {
		x, y, safe := asciiFoldPair(b)
		if !safe {
			continue
		}
		rank := int(max(byteRank[x], byteRank[y]))
		if best < 0 || rank < best {
			best, one, other, ok = rank, x, y, true
		}
	}
	return one, other, ok
}

// asciiFoldPair returns the case variants of an ASCII byte (the byte twice
// when it has no other case), or safe = false when its Unicode
// simple-folding orbit leaves ASCII or has more than two members.
func asciiFoldPair(b byte) (x, y byte, safe bool) {
	if b >= utf8.RuneSelf {
		return 0, 0, false
	}
	x, y = b, b
	for r := unicode.SimpleFold(rune(b)); r != rune(b); r = unicode.SimpleFold(r) {
		if r >= utf8.RuneSelf || y != b {
			return 0, 0, false
		}
		y = byte(r)
	}
	return x, y, true
}
