package writefile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// editCall runs edit_file with args through client.
func editCall(t *testing.T, client sdk.ToolPlugin, args any) sdk.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.Execute(context.Background(), sdk.Call{ID: "e1", Tool: editToolName, Arguments: raw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestEditFile(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	tests := []struct {
		name     string
		file     string // content before; "" for no file
		mode     os.FileMode
		args     obj
		want     string // content after; "" for unchanged
		inResult []string
		errKind  sdk.ErrorKind
	}{
		{name: "unique match", file: src, args: obj{"old_string": "func A() int {\n\treturn 1", "new_string": "func A() int {\n\treturn 2"},
			want:     strings.Replace(src, "return 1", "return 2", 1),
			inResult: []string{`edited "f.go": 1 replacement, +1 -1 lines`, "--- a/f.go\n+++ b/f.go\n", "-\treturn 1\n+\treturn 2\n"}},
		{name: "no match lists candidates", file: src, args: obj{"old_string": "func A() int {\n  return 1", "new_string": "x"},
			errKind: sdk.KindInvalidArgs, inResult: []string{"old_string was not found", "line 3 (differs in whitespace only): func A() int {"}},
		{name: "several matches", file: src, args: obj{"old_string": "return 1", "new_string": "return 2"},
			errKind: sdk.KindInvalidArgs, inResult: []string{"occurs more than once (starting on lines 4, 8)"}},
		{name: "replace all", file: src, args: obj{"old_string": "return 1", "new_string": "return 2", "replace_all": true},
			want: strings.ReplaceAll(src, "return 1", "return 2"), inResult: []string{"2 replacements, +2 -2 lines"}},
		{name: "multi-edit", file: src, args: obj{"edits": []obj{{"old_string": "func A", "new_string": "func Alpha"}, {"old_string": "func B", "new_string": "func Beta"}}},
			want: strings.NewReplacer("func A", "func Alpha", "func B", "func Beta").Replace(src), inResult: []string{"2 replacements"}},
		{name: "multi-edit rolls back on a failing edit", file: src, args: obj{"edits": []obj{{"old_string": "func A", "new_string": "func Alpha"}, {"old_string": "func Zed", "new_string": "x"}}},
			errKind: sdk.KindInvalidArgs, inResult: []string{"edit 2 of 2: old_string was not found", "No edit was applied"}},
		{name: "crlf", file: "one\r\ntwo\r\nthree\r\n", args: obj{"old_string": "two\nthree", "new_string": "2\n3"},
			want: "one\r\n2\r\n3\r\n"},
		{name: "no final newline", file: "a\nb", args: obj{"old_string": "b", "new_string": "c"}, want: "a\nc",
			inResult: []string{"\\ No newline at end of file"}},
		{name: "mode kept", file: "#!/bin/sh\necho 1\n", mode: 0o755, args: obj{"old_string": "echo 1", "new_string": "echo 2"}, want: "#!/bin/sh\necho 2\n"},
		{name: "missing file", args: obj{"old_string": "a", "new_string": "b"}, errKind: sdk.KindInvalidArgs, inResult: []string{"does not exist: create it with write_file"}},
		{name: "both forms", file: src, args: obj{"old_string": "a", "new_string": "b", "edits": []obj{{"old_string": "a", "new_string": "b"}}},
			errKind: sdk.KindInvalidArgs, inResult: []string{"not both"}},
		{name: "new_string missing", file: src, args: obj{"old_string": "a"}, errKind: sdk.KindInvalidArgs, inResult: []string{"go together"}},
		{name: "binary file", file: "a\x00b", args: obj{"old_string": "a", "new_string": "b"}, errKind: sdk.KindInvalidArgs, inResult: []string{"not UTF-8 text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			p := filepath.Join(ws, "f.go")
			mode := tt.mode
			if mode == 0 {
				mode = 0o640
			}
			if tt.file != "" {
				if err := os.WriteFile(p, []byte(tt.file), mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, mode); err != nil {
					t.Fatal(err)
				}
			}
			tt.args["path"] = "f.go"
			res := editCall(t, connect(t, ws), tt.args)
			text := res.Content
			if res.Err != nil {
				text = res.Err.Message
			}
			for _, s := range tt.inResult {
				if !strings.Contains(text, s) {
					t.Errorf("result lacks %q:\n%s", s, text)
				}
			}
			if tt.errKind != "" {
				if res.Err == nil || res.Err.Kind != tt.errKind {
					t.Fatalf("err = %+v, want kind %s", res.Err, tt.errKind)
				}
				if b, err := os.ReadFile(p); tt.file != "" && (err != nil || string(b) != tt.file) {
					t.Fatalf("a refused edit changed the file: %q (%v)", b, err)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			b, err := os.ReadFile(p)
			if err != nil || string(b) != tt.want {
				t.Fatalf("file holds %q (%v), want %q", b, err, tt.want)
			}
			fi, err := os.Stat(p)
			if err != nil || fi.Mode().Perm() != mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), mode)
			}
			view, ok := res.Presentation.(sdk.DiffView)
			if !ok || view.Path != "f.go" || !strings.Contains(res.Content, view.Unified) {
				t.Errorf("the card's diff is not the one the model got: %+v", res.Presentation)
			}
		})
	}
}

// Protected paths (the host's list) are refused by both tools, through a
// symbolic link or a hard link too, and the file is left as it was.
func TestProtectedPathsRefused(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	cfg := filepath.Join(ws, "agent.hcl")
	if err := os.WriteFile(cfg, []byte("agent \"a\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("agent.hcl", filepath.Join(ws, "link.hcl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(cfg, filepath.Join(ws, "hard.hcl")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	client := connectWith(t, sdk.PluginConfig{Workspace: ws, Protected: []string{cfg, filepath.Join(ws, ".harness")}})
	for _, path := range []string{"agent.hcl", "link.hcl", "hard.hcl", ".harness/harness.db", cfg} {
		res := call(t, client, obj{"path": path, "content": "agent \"a\" { terminal = \"allow\" }\n"})
		if res.Err == nil || res.Err.Kind != sdk.KindDenied || !strings.Contains(res.Err.Message, "is protected") {
			t.Errorf("write_file %s: %+v", path, res.Err)
		}
		res = editCall(t, client, obj{"path": path, "old_string": "{}", "new_string": "{ terminal = \"allow\" }"})
		if res.Err == nil || res.Err.Kind != sdk.KindDenied {
			t.Errorf("edit_file %s: %+v", path, res.Err)
		}
	}
	if b, err := os.ReadFile(cfg); err != nil || string(b) != "agent \"a\" {}\n" {
		t.Fatalf("the protected file changed: %q (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".harness", "harness.db")); err == nil {
		t.Fatal("a file was created in a protected folder")
	}
	if res := call(t, client, obj{"path": "other.txt", "content": "x"}); res.Err != nil {
		t.Fatalf("a file that is not protected: %+v", res.Err)
	}
}

// A named pipe, there from the start or swapped in, is refused without
// blocking: the call's deadline is the failure signal, not a timer.
func TestNamedPipeNeverBlocks(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	client := connect(t, ws)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for tool, args := range map[string]obj{
		toolName:     {"path": "pipe", "content": "x"},
		editToolName: {"path": "pipe", "old_string": "a", "new_string": "b"},
	} {
		raw, _ := json.Marshal(args)
		res, err := client.Execute(ctx, sdk.Call{ID: "p", Tool: tool, Arguments: raw}, nil)
		if err != nil {
			t.Fatalf("%s: %v (a blocked open shows as the deadline)", tool, err)
		}
		if res.Err == nil || res.Err.Kind != sdk.KindInvalidArgs || !strings.Contains(res.Err.Message, "named pipe") {
			t.Errorf("%s: %+v", tool, res.Err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(ws, "pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi, err)
	}
}

// The host pins the path it approved; a folder swapped for a link after
// the approval makes the same name resolve elsewhere, and the write is
// refused with nothing written where the link leads.
func TestApprovedPathRechecked(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, d := range []string{"docs", "src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, "f.md"), []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	client := connect(t, ws)
	// Approved: docs/f.md. Then docs becomes a link to src.
	if err := os.Rename(filepath.Join(ws, "docs"), filepath.Join(ws, "docs.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(ws, "docs")); err != nil {
		t.Fatal(err)
	}
	for tool, args := range map[string]obj{
		toolName:     {"path": "docs/f.md", "content": "two\n", "approved_path": "docs/f.md"},
		editToolName: {"path": "docs/f.md", "old_string": "one", "new_string": "two", "approved_path": "docs/f.md"},
	} {
		raw, _ := json.Marshal(args)
		res, err := client.Execute(context.Background(), sdk.Call{ID: "a", Tool: tool, Arguments: raw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Err == nil || res.Err.Kind != sdk.KindDenied || !strings.Contains(res.Err.Message, `resolves to "src/f.md" now, but "docs/f.md" was approved`) {
			t.Errorf("%s: %+v", tool, res.Err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src", "f.md")); string(b) != "one\n" {
		t.Errorf("the write went through the swapped link: %q", b)
	}
	// The same path, unchanged, is written.
	res := editCall(t, client, obj{"path": "src/f.md", "old_string": "one", "new_string": "two", "approved_path": "src/f.md"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
}
