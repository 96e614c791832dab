package providerkit

import (
	"strconv"
	"unicode/utf8"
)

// Excerpt quotes the start of a payload (200 bytes, cut at a rune
// boundary) for an error message.
func Excerpt(b []byte) string {
	const n = 200
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}
