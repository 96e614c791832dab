package terminal

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output kept for the model: at most the first headCap and the last tailCap
// bytes, with the marker and notes well under the registry's safety net.
const (
	headCap = 16 << 10
	tailCap = 16 << 10
)

// capture keeps the head and the tail of a byte stream in fixed memory:
// the head fills once, the tail is a ring over the newest bytes. However
// much a command prints, capture holds at most headCap+tailCap bytes.
type capture struct {
	head  []byte
	ring  []byte // allocated at tailCap once the head is full
	next  int    // where the ring's next byte goes
	full  bool   // the ring has wrapped: ring[next:] is older than ring[:next]
	total int64
	lines int64 // newlines in everything written
	hcap  int
	tcap  int
}

func newCapture(hcap, tcap int) *capture {
	return &capture{hcap: hcap, tcap: tcap, head: make([]byte, 0, hcap)}
}

// Write appends p; it never fails.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	c.lines += int64(bytes.Count(p, newline))
	if room := c.hcap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || c.tcap == 0 {
		return n, nil
	}
	if c.ring == nil {
		c.ring = make([]byte, c.tcap)
	}
	if len(p) >= c.tcap {
		copy(c.ring, p[len(p)-c.tcap:])
		c.next, c.full = 0, true
		return n, nil
	}
	k := copy(c.ring[c.next:], p)
	if k < len(p) {
		copy(c.ring, p[k:])
		c.full = true
	}
	c.next = (c.next + len(p)) % c.tcap
	if c.next == 0 {
		c.full = true
	}
	return n, nil
}

func (c *capture) tail() []byte {
	if !c.full {
		return c.ring[:c.next]
	}
	out := make([]byte, 0, c.tcap)
	out = append(out, c.ring[c.next:]...)
	return append(out, c.ring[:c.next]...)
}

// String returns the kept output as valid UTF-8. When bytes were dropped
// a marker line between head and tail says exactly how many bytes and how
// many newlines (lines) are missing. The head ends and the tail starts at a
// line boundary where one is near, and never splits a character.
func (c *capture) String() string {
	head, tail := c.head, c.tail()
	if c.total == int64(len(head))+int64(len(tail)) {
		return strings.ToValidUTF8(string(head)+string(tail), "\uFFFD")
	}
	keptHead := head[:headEnd(head)]
	keptTail := tail[tailStart(tail):]
	omitted := c.total - int64(len(keptHead)) - int64(len(keptTail))
	omittedLines := c.lines - int64(bytes.Count(keptHead, newline)) - int64(bytes.Count(keptTail, newline))

	var b strings.Builder
	b.Grow(len(keptHead) + len(keptTail) + 64)
	b.WriteString(strings.ToValidUTF8(string(keptHead), "\uFFFD"))
	if len(keptHead) > 0 && keptHead[len(keptHead)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… %d bytes (%d lines) omitted …]\n", omitted, omittedLines)
	b.WriteString(strings.ToValidUTF8(string(keptTail), "\uFFFD"))
	return b.String()
}

var newline = []byte{'\n'}

// headEnd is where the kept head ends: after its last newline when that is
// in its second half, else before a character cut off at its end.
func headEnd(head []byte) int {
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		return i + 1
	}
	return len(completeRunes(head))
}

// tailStart is where the kept tail starts: after its first newline when
// that is in its first half, else after the end of a character whose start
// was cut off.
func tailStart(tail []byte) int {
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		return i + 1
	}
	return partialRunePrefix(tail)
}

// completeRunes drops an incomplete UTF-8 sequence from the end of p, the
// bytes of a character whose rest was cut off.
func completeRunes(p []byte) []byte {
	return p[:len(p)-incompleteSuffix(p)]
}

// incompleteSuffix is the length of a trailing UTF-8 sequence that is the
// start of a character but not all of it (0 when p ends cleanly or ends in
// bytes that can never become valid).
func incompleteSuffix(p []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(p); i++ {
		b := p[len(p)-i]
		if utf8.RuneStart(b) {
			if b >= utf8.RuneSelf && !utf8.FullRune(p[len(p)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// partialRunePrefix is the number of continuation bytes at the start of p:
// the end of a character whose start was cut off.
func partialRunePrefix(p []byte) int {
	i := 0
	for i < len(p) && i < utf8.UTFMax-1 && !utf8.RuneStart(p[i]) {
		i++
	}
	return i
}
