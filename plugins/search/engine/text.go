package engine

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLineBytes caps Hit.Text and context lines. A longer line is cut to an
// excerpt of about this size around the match, "…" marks the cut ends, and a
// note gives the full length.
const MaxLineBytes = 500

// excerptLead is how much of an overlong line is shown before the match.
const excerptLead = 100

// lineText turns a line into Hit text: without a trailing '\r', cut when
// overlong (around the match column says, from the start when column is
// nil), with invalid UTF-8 replaced by U+FFFD so the text can travel in
// protobuf strings and JSON.
func lineText(line []byte, column func([]byte) int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= MaxLineBytes {
		return validString(line)
	}
	from := 0
	if column != nil {
		from = max(column(line)-excerptLead, 0)
	}
	to := min(from+MaxLineBytes, len(line))
	from = max(to-MaxLineBytes, 0)
	for from > 0 && from < len(line) && !utf8.RuneStart(line[from]) {
		from++
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to--
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	b.WriteString(validString(line[from:to]))
	if to < len(line) {
		b.WriteString("…")
	}
	b.WriteString(" [line cut, " + strconv.Itoa(len(line)) + " bytes]")
	return b.String()
}

func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
