package writefile

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// lines returns "line N\n" for n in [from, to], with edits applied:
// edits[n] replaces line n ("" deletes it).
func lines(from, to int, edits map[int]string) string {
	var b strings.Builder
	for n := from; n <= to; n++ {
		if l, ok := edits[n]; ok {
			b.WriteString(l)
			continue
		}
		fmt.Fprintf(&b, "line %d\n", n)
	}
	return b.String()
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	info, err := sdktest.ConnectTool(t, New()).Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Tools) != 2 {
		t.Fatalf("tools: %+v", info.Tools)
	}
	for i, want := range []struct {
		name, description string
		required          []string
	}{{"write_file", description, []string{"path", "content"}}, {"edit_file", editDescription, []string{"path"}}} {
		spec := info.Tools[i]
		if spec.Name != want.name || spec.Capabilities != (sdk.Capabilities{Writes: true}) || spec.Description != want.description {
			t.Errorf("spec: %+v", spec)
		}
		var s struct{ Required []string }
		if err := json.Unmarshal(spec.InputSchema, &s); err != nil || !cmp.Equal(s.Required, want.required) {
			t.Errorf("schema: %s (%v)", spec.InputSchema, err)
		}
	}
}

func TestNotConfigured(t *testing.T) {
	t.Parallel()
	res := call(t, sdktest.ConnectTool(t, New()), obj{"path": "a.txt", "content": "x"})
	if res.Err == nil || res.Err.Kind != sdk.KindInternal || !strings.Contains(res.Err.Message, "not configured") {
		t.Fatalf("got %+v", res.Err)
	}
}

// Each case writes after through gRPC over before (absent: a new file)
// and compares the diff with testdata/golden/NAME.diff.
func TestGoldenDiffs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path    string
		before, after *string
		message       string
	}{
		{"create", "new/dir/hello.go", nil, ptr("package main\n\nfunc main() {}\n"), `created "new/dir/hello.go" (3 lines, 29 bytes).`},
		{"create-empty", "empty.txt", nil, ptr(""), `created "empty.txt" (0 lines, 0 bytes).`},
		{"change-one-line", "f.txt", ptr(lines(1, 20, nil)), ptr(lines(1, 20, map[int]string{10: "line ten\n"})), `updated "f.txt": +1 -1 lines (20 lines, 152 bytes now).`},
		{"two-hunks", "f.txt", ptr(lines(1, 30, nil)), ptr(lines(1, 30, map[int]string{2: "", 28: "line 28\nextra\n"})), `updated "f.txt": +1 -1 lines (30 lines, 230 bytes now).`},
		{"nearby-changes-merge", "f.txt", ptr(lines(1, 20, nil)), ptr(lines(1, 20, map[int]string{5: "five\n", 11: "eleven\n"})), `updated "f.txt": +2 -2 lines (20 lines, 148 bytes now).`},
		{"append", "f.txt", ptr(lines(1, 5, nil)), ptr(lines(1, 7, nil)), `updated "f.txt": +2 -0 lines (7 lines, 49 bytes now).`},
		{"no-newline-at-end", "f.txt", ptr("a\nb\nc"), ptr("a\nb\nd"), `updated "f.txt": +1 -1 lines (3 lines, 5 bytes now).`},
		{"add-newline-at-end", "f.txt", ptr("a\nb"), ptr("a\nb\n"), `updated "f.txt": +1 -1 lines (2 lines, 4 bytes now).`},
		{"empty-it", "f.txt", ptr("a\nb\n"), ptr(""), `updated "f.txt": +0 -2 lines (0 lines, 0 bytes now).`},
		{"crlf", "win.txt", ptr("one\r\ntwo\r\n"), ptr("one\r\n2\r\n"), `updated "win.txt": +1 -1 lines (2 lines, 8 bytes now).`},
		{"multibyte", "u.txt", ptr("héllo\nwörld\n"), ptr("héllo\nwörld 🙂\n"), `updated "u.txt": +1 -1 lines (2 lines, 19 bytes now).`},
		{"was-binary", "blob", ptr("\x00\x01\x02"), ptr("text\n"), `updated "blob": +1 -1 lines (1 line, 5 bytes now).`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			if tt.before != nil {
				if err := os.WriteFile(filepath.Join(ws, tt.path), []byte(*tt.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := call(t, connect(t, ws), obj{"path": tt.path, "content": *tt.after})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if res.Content != tt.message {
				t.Errorf("content %q, want %q", res.Content, tt.message)
			}
			view, ok := res.Presentation.(sdk.DiffView)
			if !ok || view.Path != tt.path {
				t.Fatalf("presentation %+v", res.Presentation)
			}
			testkit.Golden(t, filepath.Join("testdata", "golden", tt.name+".diff"), []byte(view.Unified))
			got, err := os.ReadFile(filepath.Join(ws, tt.path))
			if err != nil || string(got) != *tt.after {
				t.Errorf("file holds %q (%v), want %q", got, err, *tt.after)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestKeepsMode(t *testing.T) {
	t.Parallel()
	for _, mode := range []fs.FileMode{0o600, 0o755, 0o640} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			p := filepath.Join(ws, "f")
			if err := os.WriteFile(p, []byte("old\n"), mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil { // past the umask
				t.Fatal(err)
			}
			if res := call(t, connect(t, ws), obj{"path": "f", "content": "new\n"}); res.Err != nil {
				t.Fatal(res.Err)
			}
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
				t.Fatalf("mode after overwrite: %v (%v), want %v", fi.Mode().Perm(), err, mode)
			}
		})
	}
	ws := t.TempDir()
	if res := call(t, connect(t, ws), obj{"path": "new", "content": "x"}); res.Err != nil {
		t.Fatal(res.Err)
	}
	if fi, err := os.Stat(filepath.Join(ws, "new")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v (%v), want 0644", fi.Mode().Perm(), err)
	}
}

// An identical write does not touch the file: its modification time stays.
func TestUnchanged(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	p := filepath.Join(ws, "same.txt")
	if err := os.WriteFile(p, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(p, past, past); err != nil {
		t.Fatal(err)
	}
	res := call(t, connect(t, ws), obj{"path": "same.txt", "content": "a\nb\n"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := `"same.txt" is unchanged: the content is identical, nothing was written (2 lines, 4 bytes).`; res.Content != want {
		t.Errorf("content %q, want %q", res.Content, want)
	}
	if res.Presentation != (sdk.DiffView{Path: "same.txt"}) {
		t.Errorf("presentation %+v", res.Presentation)
	}
	if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(past) {
		t.Errorf("modification time %v (%v), want %v", fi.ModTime(), err, past)
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	client := connect(t, ws)
	tests := []struct {
		name string
		args obj
		want string
	}{
		{"directory", obj{"path": "dir", "content": "x"}, `write_file: "dir" is a directory`},
		{"workspace root", obj{"path": ".", "content": "x"}, `write_file: "." is a directory`},
		{"under a file", obj{"path": "file/x", "content": "x"}, "one of its parent directories is a file"},
		{"no content", obj{"path": "a.txt"}, "content is missing"},
		{"no path", obj{"content": "x"}, "the path is empty"},
		{"wrong type", obj{"path": "a.txt", "content": 3}, "arguments are not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, client, tt.args)
			if res.Err == nil || res.Err.Kind != sdk.KindInvalidArgs || !strings.Contains(res.Err.Message, tt.want) {
				t.Fatalf("got %+v, want invalid_args containing %q", res.Err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); err == nil {
		t.Error("a refused write created a file")
	}
}

// The escape corpus through the real gRPC boundary: every write is
// refused and nothing appears or changes outside.
func TestEscapes(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	client := connect(t, tr.WS)
	for _, p := range workspacetest.Escapes {
		res := call(t, client, obj{"path": p, "content": "pwned\n"})
		if res.Err == nil || res.Err.Kind != sdk.KindPathEscape {
			t.Errorf("%q: got %q %+v, want path_escape", p, res.Content, res.Err)
			continue
		}
		if !strings.HasPrefix(res.Err.Message, fmt.Sprintf("write_file: %q", p)) || !strings.Contains(res.Err.Message, tr.WS) {
			t.Errorf("message %q should name the path and the workspace", res.Err.Message)
		}
	}
	tr.AssertOutsideUntouched(t)
	if target, err := os.Readlink(filepath.Join(tr.WS, "link_out")); err != nil || target != tr.Outside {
		t.Errorf("the link itself changed: %q %v", target, err)
	}

	// Links that stay inside are written through; the link stays a link.
	for _, p := range []string{"link_in", "link_in_abs", "link_dir_in/b.txt", "dangling_in"} {
		res := call(t, client, obj{"path": p, "content": p + "\n"})
		if res.Err != nil {
			t.Fatalf("%s: %v", p, res.Err)
		}
		if got, err := os.ReadFile(filepath.Join(tr.WS, p)); err != nil || string(got) != p+"\n" {
			t.Errorf("%s reads back %q (%v)", p, got, err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(tr.WS, "link_in")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link_in is no longer a link (%v)", err)
	}
	if got, _ := os.ReadFile(filepath.Join(tr.WS, "missing.txt")); string(got) != "dangling_in\n" {
		t.Errorf("the dangling link's target holds %q", got)
	}
}
