package event

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// AppendJSON appends r encoded as json.Marshal encodes it, byte for byte,
// faster: the content of a tool.result is most of what a run stores, and
// encoding/json escapes it at a few hundred MB/s (session.EncodeData, which
// the store and the run's redaction use, calls it).
func (r ToolResult) AppendJSON(b []byte) ([]byte, error) {
	var errJSON, presJSON []byte
	if r.Error != nil {
		var err error
		if errJSON, err = json.Marshal(r.Error); err != nil {
			return b, err
		}
	}
	if len(r.Presentation) > 0 {
		var err error
		if presJSON, err = json.Marshal(r.Presentation); err != nil { // validated and compacted, as a field
			return b, err
		}
	}
	// One allocation: the fields, their names, and room for escapes.
	n := len(r.CallID) + len(r.Tool) + len(r.Content) + len(r.ActionID)
	b = slices.Grow(b, n+n/8+len(errJSON)+len(presJSON)+96)
	b = append(b, `{"call_id":`...)
	b = appendString(b, r.CallID)
	b = append(b, `,"tool":`...)
	b = appendString(b, r.Tool)
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, r.OK)
	b = append(b, `,"content":`...)
	b = appendString(b, r.Content)
	if errJSON != nil {
		b = append(b, `,"error":`...)
		b = append(b, errJSON...)
	}
	if presJSON != nil {
		b = append(b, `,"presentation":`...)
		b = append(b, presJSON...)
	}
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, r.DurationMS, 10)
	if r.ActionID != "" {
		b = append(b, `,"action_id":`...)
		b = appendString(b, r.ActionID)
	}
	return append(b, '}'), nil
}

// Masks of the bytes of a word, for testing eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// zeroByte has the high bit set in the byte of x that is zero, if any
// (other bytes' high bits may be set too, above a zero one).
func zeroByte(x uint64) uint64 { return (x - ones) &^ x }

// appendString appends s as a JSON string exactly as encoding/json writes
// it: <, > and & escaped, \b \f \n \r \t by name and other control bytes
// as \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped. Runs of
// eight bytes that need none of that are skipped a word at a time.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)) // the 8 bytes at i
			// Any byte that is ≥ 0x80, < 0x20, or one of " \ < > &.
			if (x|(x-ones*0x20)&^x|zeroByte(x^ones*'"')|zeroByte(x^ones*'\\')|
				zeroByte(x^ones*'<')|zeroByte(x^ones*'>')|zeroByte(x^ones*'&'))&highs != 0 {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// safeASCII is true for the ASCII bytes a JSON string holds as they are.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
