package terminal

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"empty", nil, ""},
		{"fits", []string{"abc", "def"}, "abcdef"},
		{"fills head and tail exactly", []string{"0123", "4567"}, "01234567"},
		{"one byte over", []string{"012345678"}, "0123\n[… 1 bytes (0 lines) omitted …]\n5678"},
		{"many small writes", strings.Split("abcdefghijklmnopqrstuvwxyz", ""), "abcd\n[… 18 bytes (0 lines) omitted …]\nwxyz"},
		{"one big write", []string{strings.Repeat("x", 100) + "tail"}, "xxxx\n[… 96 bytes (0 lines) omitted …]\ntail"},
		{"head ends in a newline", []string{"abc\n", "0123456789"}, "abc\n[… 6 bytes (0 lines) omitted …]\n6789"},
		{"ring wraps mid-write", []string{"head", "12", "345", "67"}, "head\n[… 3 bytes (0 lines) omitted …]\n4567"},
		// "é" is two bytes: a cut through it drops the whole character.
		{"cut through a character at the head", []string{"abcé0123456789"}, "abc\n[… 8 bytes (0 lines) omitted …]\n6789"},
		{"cut through a character at the tail", []string{"abcd01234é789"}, "abcd\n[… 7 bytes (0 lines) omitted …]\n789"},
		{"invalid bytes are replaced", []string{"a\xffb"}, "a\uFFFDb"},
		// Cuts move to a line boundary in the kept half; the lines count the newlines cut.
		{"lines", []string{"ab\ncd\nef\ngh\n"}, "ab\n[… 6 bytes (2 lines) omitted …]\ngh\n"},
		{"line boundary too far", []string{"a\nbcdefghij\n"}, "a\nbc\n[… 4 bytes (0 lines) omitted …]\nhij\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCapture(4, 4)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := c.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCaptureKeepsNewestTailAcrossManyWrites(t *testing.T) {
	t.Parallel()
	c := newCapture(headCap, tailCap)
	var all bytes.Buffer
	for i := range 20_000 {
		line := fmt.Sprintf("line %d\n", i)
		all.WriteString(line)
		_, _ = c.Write([]byte(line))
	}
	checkAccount(t, all.Bytes(), c.String())
}

// The marker's numbers are exact: 1.25 MB of `seq`-like output reports
// every byte and every line it did not keep.
func TestCaptureAccountsForLargeOutput(t *testing.T) {
	t.Parallel()
	c := newCapture(headCap, tailCap)
	var all bytes.Buffer
	for i := 1; i <= 200_000; i++ {
		fmt.Fprintf(&all, "%d\n", i)
	}
	for rest := all.Bytes(); len(rest) > 0; {
		n := min(readSize, len(rest))
		_, _ = c.Write(rest[:n])
		rest = rest[n:]
	}
	omitted, lines := checkAccount(t, all.Bytes(), c.String())
	if omitted < 1_200_000 || lines < 190_000 {
		t.Errorf("omitted %d bytes, %d lines of 1.29 MB", omitted, lines)
	}
}

var markerRE = regexp.MustCompile(`(?m)^\[… (\d+) bytes \((\d+) lines\) omitted …\]\n`)

// checkAccount checks that got is a head of data, a marker and a tail of
// data, and that the marker counts exactly the bytes and newlines between.
func checkAccount(t *testing.T, data []byte, got string) (omitted, lines int) {
	t.Helper()
	loc := markerRE.FindStringSubmatchIndex(got)
	if loc == nil {
		t.Fatalf("no marker in %.300q", got)
	}
	head, tail := got[:loc[0]], got[loc[1]:]
	omitted, _ = strconv.Atoi(got[loc[2]:loc[3]])
	lines, _ = strconv.Atoi(got[loc[4]:loc[5]])
	if !bytes.HasSuffix(data, []byte(tail)) {
		t.Fatalf("the tail is not the output's own bytes")
	}
	// The newline before the marker is the head's own, or the marker's when
	// the head did not end with one: "0\n" then "000" cut from "0\n000"
	// prints as "0" then "000" would. One of the two readings must account
	// for the cut exactly.
	heads := []string{head}
	if h, ok := strings.CutSuffix(head, "\n"); ok {
		heads = append(heads, h)
	}
	var cut []byte
	for _, h := range heads {
		if !bytes.HasPrefix(data, []byte(h)) || len(h)+len(tail) > len(data) {
			continue
		}
		cut = data[len(h) : len(data)-len(tail)]
		if omitted == len(cut) && lines == bytes.Count(cut, []byte{'\n'}) {
			return omitted, lines
		}
	}
	if cut == nil {
		t.Fatalf("the head is not the output's own bytes")
	}
	t.Fatalf("marker says %d bytes, %d lines; %d bytes, %d lines were cut", omitted, lines, len(cut), bytes.Count(cut, []byte{'\n'}))
	return 0, 0
}

func FuzzCapture(f *testing.F) {
	f.Add([]byte("hello, world"), uint8(3), uint8(4), uint8(5))
	f.Add([]byte("ééééééééé\xff\xfe"), uint8(1), uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, hcap, tcap, step uint8) {
		c := newCapture(int(hcap), int(tcap))
		for rest := data; len(rest) > 0; {
			n := min(int(step)+1, len(rest))
			_, _ = c.Write(rest[:n])
			rest = rest[n:]
		}
		got := c.String()
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if len(data) <= int(hcap)+int(tcap) {
			if want := strings.ToValidUTF8(string(data), "\uFFFD"); got != want {
				t.Fatalf("got %q, want all of it: %q", got, want)
			}
			return
		}
		if utf8.Valid(data) {
			checkAccount(t, data, got)
		} else if !markerRE.MatchString(got) {
			t.Fatalf("no omission marker in %q", got)
		}
		// Memory and output stay within the caps (plus replacement characters and the marker).
		if len(got) > 3*(int(hcap)+int(tcap))+64 {
			t.Fatalf("kept %d bytes for caps %d+%d", len(got), hcap, tcap)
		}
	})
}

func TestIncompleteSuffix(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		"":              0,
		"abc":           0,
		"é":             0,
		"\xc3":          1,
		"a\xe2\x82":     2,
		"a\xf0\x9f\x98": 3,
		"\xff":          0,
		"€":             0,
	} {
		if got := incompleteSuffix([]byte(in)); got != want {
			t.Errorf("incompleteSuffix(%q) = %d, want %d", in, got, want)
		}
	}
}
