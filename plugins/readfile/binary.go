package readfile

import (
	"bytes"
	"net/http"
	"strings"
)

// sniffLen is how much of a file decides whether it is text; git looks at
// the first 8000 bytes the same way.
const sniffLen = 8 << 10

// magic names binary formats that net/http's sniffer only calls
// application/octet-stream.
var magic = []struct {
	prefix, typ string
}{
	{"\x7fELF", "application/x-elf"},
	{"\xfe\xed\xfa\xce", "application/x-mach-binary"},
	{"\xfe\xed\xfa\xcf", "application/x-mach-binary"},
	{"\xce\xfa\xed\xfe", "application/x-mach-binary"},
	{"\xcf\xfa\xed\xfe", "application/x-mach-binary"},
	{"MZ", "application/vnd.microsoft.portable-executable"},
	{"\xca\xfe\xba\xbe", "application/java-vm"},
	{"SQLite format 3\x00", "application/vnd.sqlite3"},
	{"\xfd7zXZ\x00", "application/x-xz"},
	{"\x28\xb5\x2f\xfd", "application/zstd"},
	{"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"},
	{"BZh", "application/x-bzip2"},
}

// sniff returns the content type of a file that starts with head and
// whether read_file can show it: UTF-8 (or ASCII-compatible) text without
// NUL bytes. UTF-16 is text but not something the tool shows.
func sniff(head []byte) (typ string, text bool) {
	typ = http.DetectContentType(head)
	textual := strings.HasPrefix(typ, "text/") || typ == "application/postscript"
	if textual && !strings.Contains(typ, "utf-16") && bytes.IndexByte(head, 0) < 0 {
		return typ, true
	}
	if textual && !strings.Contains(typ, "utf-16") {
		typ = "application/octet-stream" // text-looking start, NUL bytes later
	}
	if typ == "application/octet-stream" {
		for _, m := range magic {
			if bytes.HasPrefix(head, []byte(m.prefix)) {
				return m.typ, false
			}
		}
	}
	return typ, false
}
