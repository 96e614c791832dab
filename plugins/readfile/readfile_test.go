package readfile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// numbered returns lines "line N" for n in [from, to].
func numbered(from, to int) string {
	var b strings.Builder
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "line %d\n", n)
	}
	return b.String()
}

// catN renders lines "line N" for n in [from, to] as read_file shows them.
func catN(from, to int) string {
	var b strings.Builder
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", n, n)
	}
	return b.String()
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	info, err := sdktest.ConnectTool(t, New()).Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Tools) != 1 {
		t.Fatalf("tools: %+v", info.Tools)
	}
	spec := info.Tools[0]
	if spec.Name != "read_file" || spec.Capabilities != (sdk.Capabilities{Reads: true}) || spec.Description != description {
		t.Errorf("spec: %+v", spec)
	}
	var s struct {
		Required   []string
		Properties map[string]struct{ Type string }
	}
	if err := json.Unmarshal(spec.InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(s.Required, []string{"path"}) || s.Properties["offset"].Type != "integer" || s.Properties["limit"].Type != "integer" {
		t.Errorf("schema: %s", spec.InputSchema)
	}
}

func TestNotConfigured(t *testing.T) {
	t.Parallel()
	res := call(t, sdktest.ConnectTool(t, New()), obj{"path": "a.txt"})
	if res.Err == nil || res.Err.Kind != sdk.KindInternal || !strings.Contains(res.Err.Message, "not configured") {
		t.Fatalf("got %+v", res.Err)
	}
}

func TestWindow(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"ten.txt":      numbered(1, 10),
		"no-eol.txt":   "one\ntwo",
		"big.txt":      numbered(1, 2500),
		"dir/deep.txt": "x\n",
		"blank.txt":    "\n\n\n",
	})
	client := connect(t, ws)
	tests := []struct {
		name    string
		args    obj
		content string
		view    sdk.FileView
	}{
		{"whole file", obj{"path": "ten.txt"}, catN(1, 10), sdk.FileView{Path: "ten.txt", StartLine: 1, EndLine: 10}},
		{"offset and limit", obj{"path": "ten.txt", "offset": 3, "limit": 2}, catN(3, 4) + "\n… showed lines 3-4 of 10; use offset=5 to continue.\n",
			sdk.FileView{Path: "ten.txt", StartLine: 3, EndLine: 4}},
		{"last line", obj{"path": "ten.txt", "offset": 10}, catN(10, 10), sdk.FileView{Path: "ten.txt", StartLine: 10, EndLine: 10}},
		{"limit to the end exactly", obj{"path": "ten.txt", "offset": 6, "limit": 5}, catN(6, 10), sdk.FileView{Path: "ten.txt", StartLine: 6, EndLine: 10}},
		{"limit past the end", obj{"path": "ten.txt", "offset": 9, "limit": 50}, catN(9, 10), sdk.FileView{Path: "ten.txt", StartLine: 9, EndLine: 10}},
		{"no final newline", obj{"path": "no-eol.txt"}, "     1\tone\n     2\ttwo\n\n… line 2, the last, has no newline at its end.\n", sdk.FileView{Path: "no-eol.txt", StartLine: 1, EndLine: 2}},
		{"blank lines", obj{"path": "blank.txt"}, "     1\t\n     2\t\n     3\t\n", sdk.FileView{Path: "blank.txt", StartLine: 1, EndLine: 3}},
		{"cleaned path", obj{"path": "./dir/../dir/deep.txt"}, "     1\tx\n", sdk.FileView{Path: "dir/deep.txt", StartLine: 1, EndLine: 1}},
		{"absolute inside", obj{"path": ws + "/dir/deep.txt"}, "     1\tx\n", sdk.FileView{Path: "dir/deep.txt", StartLine: 1, EndLine: 1}},
		{"line cap", obj{"path": "big.txt"}, catN(1, 2000) + "\n… showed lines 1-2000 of 2500; use offset=2001 to continue.\n",
			sdk.FileView{Path: "big.txt", StartLine: 1, EndLine: 2000}},
		{"continue after the cap", obj{"path": "big.txt", "offset": 2001}, catN(2001, 2500), sdk.FileView{Path: "big.txt", StartLine: 2001, EndLine: 2500}},
		{"limit over the cap", obj{"path": "big.txt", "offset": 401, "limit": 5000},
			catN(401, 2400) + "\n… showed lines 401-2400 of 2500 (one call returns at most 2000 lines); use offset=2401 to continue.\n",
			sdk.FileView{Path: "big.txt", StartLine: 401, EndLine: 2400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, client, tt.args)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if diff := cmp.Diff(tt.content, res.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(sdk.Presentation(tt.view), res.Presentation); diff != "" {
				t.Errorf("presentation (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"ten.txt":   numbered(1, 10),
		"dir/x.txt": "x",
		// Binary files: the first bytes of real formats.
		"logo.png":  "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89",
		"a.out":     "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01\x00\x00\x00",
		"nul.txt":   "hello\x00world\n",
		"late-nul":  strings.Repeat("text\n", 200) + "\x00",
		"utf16.txt": "\xff\xfeh\x00i\x00\n\x00",
		"data.gz":   "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03",
		"db.sqlite": "SQLite format 3\x00\x10\x00\x01\x01\x00@  ",
	})
	client := connect(t, ws)
	tests := []struct {
		name string
		args obj
		kind sdk.ErrorKind
		want string
	}{
		{"png", obj{"path": "logo.png"}, sdk.KindInvalidArgs, `read_file: "logo.png" is a binary file (image/png, 33 bytes)`},
		{"elf", obj{"path": "a.out"}, sdk.KindInvalidArgs, `"a.out" is a binary file (application/x-elf,`},
		{"nul", obj{"path": "nul.txt"}, sdk.KindInvalidArgs, `"nul.txt" is a binary file (application/octet-stream,`},
		{"nul after the sniffer's 512 bytes", obj{"path": "late-nul"}, sdk.KindInvalidArgs, `(application/octet-stream,`},
		{"utf-16", obj{"path": "utf16.txt"}, sdk.KindInvalidArgs, `is UTF-16 text (text/plain; charset=utf-16le`},
		{"gzip", obj{"path": "data.gz"}, sdk.KindInvalidArgs, `(application/x-gzip,`},
		{"sqlite", obj{"path": "db.sqlite"}, sdk.KindInvalidArgs, `(application/vnd.sqlite3,`},
		{"missing", obj{"path": "nope.txt"}, sdk.KindInvalidArgs, fmt.Sprintf(`read_file: "nope.txt" does not exist in the workspace %s`, ws)},
		{"directory", obj{"path": "dir"}, sdk.KindInvalidArgs, `"dir" is a directory`},
		{"workspace root", obj{"path": "."}, sdk.KindInvalidArgs, `"." is a directory`},
		{"under a file", obj{"path": "ten.txt/x"}, sdk.KindInvalidArgs, "one of its parent directories is a file"},
		{"offset past the end", obj{"path": "ten.txt", "offset": 11}, sdk.KindInvalidArgs, `offset=11 is past the end of "ten.txt", which has 10 lines`},
		{"offset zero", obj{"path": "ten.txt", "offset": 0}, sdk.KindInvalidArgs, "offset=0"},
		{"limit zero", obj{"path": "ten.txt", "limit": 0}, sdk.KindInvalidArgs, "limit=0"},
		{"no path", obj{}, sdk.KindInvalidArgs, "the path is empty"},
		{"wrong type", obj{"path": 3}, sdk.KindInvalidArgs, "arguments are not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, client, tt.args)
			if res.Err == nil || res.Err.Kind != tt.kind || !strings.Contains(res.Err.Message, tt.want) {
				t.Fatalf("got %+v, want %s containing %q", res.Err, tt.kind, tt.want)
			}
			if res.Content == "" {
				t.Error("the model must be told why")
			}
		})
	}
}

// The escape corpus through the real gRPC boundary.
func TestEscapes(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	client := connect(t, tr.WS)
	for _, p := range workspacetest.Escapes {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			res := call(t, client, obj{"path": p})
			if res.Err == nil || res.Err.Kind != sdk.KindPathEscape {
				t.Fatalf("got %q %+v, want path_escape", res.Content, res.Err)
			}
			if !strings.HasPrefix(res.Err.Message, fmt.Sprintf("read_file: %q", p)) || !strings.Contains(res.Err.Message, tr.WS) {
				t.Errorf("message %q should name the path and the workspace", res.Err.Message)
			}
			if strings.Contains(res.Content, "root:x") {
				t.Fatal("read a file outside the workspace")
			}
		})
	}
	allowed := []struct{ path, content, view string }{
		{"link_in", "     1\tbee\n", "link_in"},
		{"link_in_abs", "     1\thello\n", "link_in_abs"},
		{"link_dir_in/b.txt", "     1\tbee\n", "link_dir_in/b.txt"},
		{"sub/up/a.txt", "     1\thello\n", "sub/up/a.txt"},
	}
	for _, a := range allowed {
		res := call(t, client, obj{"path": a.path})
		if res.Err != nil || res.Content != a.content || res.Presentation.(sdk.FileView).Path != a.view {
			t.Errorf("%s: got %q %+v %+v", a.path, res.Content, res.Presentation, res.Err)
		}
	}
	res := call(t, client, obj{"path": "dangling_in"})
	if res.Err == nil || res.Err.Kind != sdk.KindInvalidArgs || !strings.Contains(res.Err.Message, `"dangling_in" does not exist`) {
		t.Errorf("dangling link inside: %+v", res.Err)
	}
}

func TestLineContent(t *testing.T) {
	t.Parallel()
	long := "a" + strings.Repeat("é", 3000) // 6001 bytes: the cut at 2000 falls inside an "é"
	emoji := strings.Repeat("🙂", 600)       // 2400 bytes of 4-byte runes
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"crlf.txt":    "one\r\ntwo\r\n\r\nlast",
		"long.txt":    long + "\nshort\n",
		"emoji.txt":   emoji + "\n",
		"latin1.txt":  "caf\xe9\n",
		"bom.txt":     "\uFEFFhello\n",
		"lone-cr.txt": "a\rb\n",
	})
	client := connect(t, ws)
	tests := []struct {
		name, path, want string
	}{
		{"crlf", "crlf.txt", "     1\tone\n     2\ttwo\n     3\t\n     4\tlast\n\n… this file has CRLF (\\r\\n) line endings; the \\r is not shown.\n… line 4, the last, has no newline at its end.\n"},
		{"long line cut at a rune boundary", "long.txt",
			"     1\t" + long[:1999] + " … [line truncated: 1999 of 6001 bytes shown]\n     2\tshort\n"},
		{"4-byte runes", "emoji.txt", "     1\t" + strings.Repeat("🙂", 500) + " … [line truncated: 2000 of 2400 bytes shown]\n"},
		{"invalid UTF-8", "latin1.txt", "     1\tcaf\uFFFD\n\n… this file is not valid UTF-8; invalid bytes are shown as U+FFFD (\uFFFD).\n"},
		{"byte order mark kept", "bom.txt", "     1\t\uFEFFhello\n"},
		{"lone CR is not a line end", "lone-cr.txt", "     1\ta\rb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, client, obj{"path": tt.path})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if diff := cmp.Diff(tt.want, res.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if !utf8.ValidString(res.Content) {
				t.Error("content is not valid UTF-8")
			}
		})
	}
}

// Long lines fill the 128 KiB budget before 2000 lines; the note points at
// the first line not shown, and reading on from there loses nothing.
func TestByteCap(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("x", 1500)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"wide.txt": strings.Repeat(line+"\n", 400)})
	client := connect(t, ws)

	var got []string
	offset := 1
	for calls := 0; ; calls++ {
		if calls > 8 {
			t.Fatal("did not reach the end")
		}
		res := call(t, client, obj{"path": "wide.txt", "offset": offset})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		view := res.Presentation.(sdk.FileView)
		body, note, _ := strings.Cut(res.Content, "\n\n")
		if len(body) > maxBytes {
			t.Fatalf("%d bytes returned, over the cap", len(body))
		}
		for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
			got = append(got, l[strings.IndexByte(l, '\t')+1:])
		}
		if view.EndLine == 400 {
			if note != "" {
				t.Errorf("note at the end: %q", note)
			}
			break
		}
		want := fmt.Sprintf("… showed lines %d-%d of 400 (one call returns at most 128 KiB); use offset=%d to continue.\n", offset, view.EndLine, view.EndLine+1)
		if note != want {
			t.Fatalf("note %q, want %q", note, want)
		}
		offset = view.EndLine + 1
	}
	if len(got) != 400 || got[0] != line || got[399] != line {
		t.Fatalf("read %d lines back", len(got))
	}
}

func TestEmptyFile(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"empty.txt": ""})
	res := call(t, connect(t, ws), obj{"path": "empty.txt"})
	if res.Err != nil || res.Content != `"empty.txt" is an empty file.` || res.Presentation != (sdk.FileView{Path: "empty.txt"}) {
		t.Fatalf("got %q %+v %+v", res.Content, res.Presentation, res.Err)
	}
}
