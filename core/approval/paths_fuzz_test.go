package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzWorkspacePath checks that a path either resolves inside the
// workspace, as a clean relative path, or is refused: never a path that
// climbs out, whatever the symlinks in the workspace.
func FuzzWorkspacePath(f *testing.F) {
	ws := f.TempDir()
	outside := f.TempDir()
	for _, l := range [][2]string{{"..", "up"}, {outside, "out"}, {"src", "in"}, {"loop", "loop"}, {"../missing/x", "dangling"}} {
		if err := os.Symlink(l[0], filepath.Join(ws, l[1])); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"src/a.go", "../x", "up/x", "out/x", "in/../../x", "loop/x", "dangling", "/etc/passwd", "a/./b//c", "src/..", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if strings.ContainsRune(p, 0) {
			return
		}
		rel, err := workspacePath(ws, p)
		if err != nil {
			return
		}
		if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) || rel != filepath.ToSlash(filepath.Clean(rel)) {
			t.Fatalf("workspacePath(%q) = %q", p, rel)
		}
	})
}
