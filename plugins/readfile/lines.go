package readfile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// lineReader reads lines of any length while holding at most a capped
// prefix of each in memory.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

// line is one line of the file without its line ending.
type line struct {
	text []byte // at most the cap, cut at a rune boundary; valid until the next call
	size int    // length of the whole line in bytes
	crlf bool   // the line ended in "\r\n"
	eol  bool   // the line ended in a newline (false for a last line without one)
}

// cut reports whether text holds less than the whole line.
func (l line) cut() bool { return len(l.text) < l.size }

// next reads the next line, keeping at most max bytes of it. It returns
// io.EOF when no line is left; a last line without a newline is a line.
func (lr *lineReader) next(max int) (line, error) {
	lr.buf = lr.buf[:0]
	var (
		size    int
		last    byte // last byte before the newline, to recognise "\r\n"
		newline bool
	)
	for {
		chunk, err := lr.r.ReadSlice('\n')
		end := err == nil
		newline = end
		switch {
		case end:
			chunk = chunk[:len(chunk)-1]
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if size+len(chunk) == 0 {
				return line{}, io.EOF
			}
			end = true
		default:
			return line{}, err
		}
		size += len(chunk)
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
		}
		// Keep one byte more than max: it may be the "\r" of the ending.
		if room := max + 1 - len(lr.buf); room > 0 {
			lr.buf = append(lr.buf, chunk[:min(room, len(chunk))]...)
		}
		if end {
			break
		}
	}
	l := line{size: size, crlf: last == '\r', eol: newline}
	if l.crlf {
		l.size--
	}
	text := lr.buf[:min(len(lr.buf), l.size)]
	if len(text) > max {
		text = text[:runeCut(text, max)]
	}
	l.text = text
	return l, nil
}

// skip passes over one line without keeping it.
func (lr *lineReader) skip() error {
	_, err := lr.next(0)
	return err
}

// runeCut returns the largest n <= max at which text can be cut without
// splitting a UTF-8 sequence.
func runeCut(text []byte, max int) int {
	n := max
	for n > 0 && n > max-utf8.UTFMax && !utf8.RuneStart(text[n]) {
		n--
	}
	if !utf8.RuneStart(text[n]) {
		return max // not UTF-8 here anyway: cut where asked
	}
	return n
}

// countLines counts the lines left in r, reading at most limit bytes. It
// reports false when it stopped before the end.
func countLines(r io.Reader, limit int64) (int, bool, error) {
	buf := make([]byte, 32<<10)
	var (
		lines   int
		read    int64
		partial bool // bytes after the last newline
	)
	for read <= limit {
		n, err := r.Read(buf)
		if n > 0 {
			read += int64(n)
			lines += bytes.Count(buf[:n], []byte{'\n'})
			partial = buf[n-1] != '\n'
		}
		if errors.Is(err, io.EOF) {
			if partial {
				lines++
			}
			return lines, true, nil
		}
		if err != nil {
			return 0, false, err
		}
	}
	return lines, false, nil
}
