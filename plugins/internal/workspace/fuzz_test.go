package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
)

// FuzzResolve checks the invariant of the workspace: whatever the name, a
// path that resolves lies inside the root, on paper and on disk, and so
// does any file that opens. "$WS" in an input stands for the workspace's
// absolute path, so the corpus can hold absolute paths.
func FuzzResolve(f *testing.F) {
	tr := workspacetest.New(f)
	fsys, err := Open(tr.WS)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { fsys.Close() })
	realWS, err := filepath.EvalSymlinks(tr.WS)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"a.txt", "../x", "/etc/passwd", "a/../../x", "link_root/etc", "link_out/passwd",
		"link_in", "dangling_out", "sub/upup/x", "a\x00b", "$WS/a.txt", "$WS/../x", "$WS-evil"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		name = strings.ReplaceAll(name, "$WS", tr.WS)
		rel, err := fsys.Resolve(name)
		if err != nil {
			return
		}
		real, err := fsys.RealPath(name)
		if err != nil {
			t.Fatalf("Resolve(%q) = %q but RealPath fails: %v", name, rel, err)
		}
		for _, p := range []string{rel, real} {
			if p != "." && !filepath.IsLocal(p) {
				t.Fatalf("Resolve(%q): %q is not inside the root", name, p)
			}
			onDisk, err := filepath.EvalSymlinks(filepath.Join(tr.WS, p))
			if err != nil {
				continue // not there (yet): nothing on disk to escape to
			}
			if r, err := filepath.Rel(realWS, onDisk); err != nil || !filepath.IsLocal(r) && r != "." {
				t.Fatalf("Resolve(%q) = %q, which is %s on disk: outside %s", name, p, onDisk, realWS)
			}
		}
		file, err := fsys.Open(name)
		if err != nil {
			return
		}
		defer file.Close()
		got, err := file.Stat()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.Stat(filepath.Join(tr.WS, real))
		if err != nil || !os.SameFile(got, want) {
			t.Fatalf("Open(%q) opened something other than %q (%v)", name, real, err)
		}
	})
}
