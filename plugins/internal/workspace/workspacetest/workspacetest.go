// Package workspacetest builds the escape corpus on disk for the tests of
// the workspace package and of the file tools: one workspace with symbolic
// links that stay inside and links that lead out, next to an outside
// directory that must never be read or written. It also connects, calls
// and starts the file tools the same way in each tool's tests, and checks
// each tool program as a process (tool.go: ServeSelf, CheckServe).
package workspacetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Tree is a workspace and the directory outside it.
//
// Inside WS: a.txt ("hello\n"), sub/b.txt ("bee\n") and the links
// link_root → /, link_out → Outside, link_rel_out → ../<Outside>/passwd,
// link_in → sub/b.txt, link_in_abs → WS/a.txt (absolute), link_dir_in →
// sub, dangling_in → missing.txt, dangling_out → Outside/nothing.txt,
// sub/up → .., sub/upup → ../.., and the loop loop1 ↔ loop2. Outside
// holds only passwd.
type Tree struct {
	WS, Outside string
}

// Escapes are paths of a Tree that every file operation must refuse with
// path_escape.
var Escapes = []string{
	"../x",
	"/etc/passwd",
	"a/../../x",
	"link_root",
	"link_root/etc/passwd",
	"link_out/passwd",
	"link_out/new.txt",
	"link_rel_out",
	"dangling_out",
	"sub/upup/x",
	"a\x00b",
}

// New builds a Tree in temporary directories of t.
func New(t testing.TB) Tree {
	t.Helper()
	tr := Tree{WS: t.TempDir(), Outside: t.TempDir()}
	write := func(dir, name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(tr.WS, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(tr.Outside, "passwd", "root:x:0:0\n")
	write(tr.WS, "a.txt", "hello\n")
	write(tr.WS, "sub/b.txt", "bee\n")
	link("/", "link_root")
	link(tr.Outside, "link_out")
	link("../"+filepath.Base(tr.Outside)+"/passwd", "link_rel_out")
	link("sub/b.txt", "link_in")
	link(filepath.Join(tr.WS, "a.txt"), "link_in_abs")
	link("sub", "link_dir_in")
	link("missing.txt", "dangling_in")
	link(filepath.Join(tr.Outside, "nothing.txt"), "dangling_out")
	link("..", "sub/up")
	link("../..", "sub/upup")
	link("loop2", "loop1")
	link("loop1", "loop2")
	return tr
}

// AssertOutsideUntouched fails t unless Outside still holds only passwd,
// unchanged.
func (tr Tree) AssertOutsideUntouched(t testing.TB) {
	t.Helper()
	entries, err := os.ReadDir(tr.Outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "passwd" {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		t.Fatalf("the directory outside the workspace changed: %v", names)
	}
	if b, err := os.ReadFile(filepath.Join(tr.Outside, "passwd")); err != nil || string(b) != "root:x:0:0\n" {
		t.Fatalf("the file outside the workspace changed: %q, %v", b, err)
	}
}
