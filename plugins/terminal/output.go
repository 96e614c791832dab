package terminal

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output kept for the model: the first headCap and the last tailCap bytes.
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
// a marker line between head and tail says how many; the cut never splits
// a character.
func (c *capture) String() string {
	head, tail := c.head, c.tail()
	omitted := c.total - int64(len(head)) - int64(len(tail))
	if omitted == 0 {
		return strings.ToValidUTF8(string(head)+string(tail), "\uFFFD")
	}
	cutHead := completeRunes(head)
	cutTail := tail[partialRunePrefix(tail):]
	omitted += int64(len(head)-len(cutHead)) + int64(len(tail)-len(cutTail))

	var b strings.Builder
	b.Grow(len(cutHead) + len(cutTail) + 64)
	b.WriteString(strings.ToValidUTF8(string(cutHead), "\uFFFD"))
	if len(cutHead) > 0 && cutHead[len(cutHead)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… %d bytes omitted …]\n", omitted)
	b.WriteString(strings.ToValidUTF8(string(cutTail), "\uFFFD"))
	return b.String()
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
