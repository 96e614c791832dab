package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing fs.FileMode // 0: no file before
		path     string
		want     fs.FileMode
	}{
		{name: "new file with parents", path: "x/y/z.txt", want: 0o644},
		{name: "keeps 0600", existing: 0o600, path: "secret.txt", want: 0o600},
		{name: "keeps 0755", existing: 0o755, path: "run.sh", want: 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			if tt.existing != 0 {
				if err := os.WriteFile(filepath.Join(ws, tt.path), []byte("old\n"), tt.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(ws, tt.path), tt.existing); err != nil { // umask
					t.Fatal(err)
				}
			}
			fsys, err := Open(ws)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fsys.Close() })
			if err := WriteFile(fsys, tt.path, []byte("new\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(ws, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.want {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tt.want)
			}
			got, _ := os.ReadFile(filepath.Join(ws, tt.path))
			if string(got) != "new\n" {
				t.Errorf("content %q", got)
			}
			assertNoTemp(t, ws)
		})
	}
}

// Writing through a link inside the workspace replaces its target and
// keeps the link.
func TestWriteFileThroughLink(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	fsys, err := Open(tr.WS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	for _, p := range []string{"link_in", "link_in_abs", "link_dir_in/b.txt", "dangling_in"} {
		if err := WriteFile(fsys, p, []byte(p), 0o644); err != nil {
			t.Fatalf("WriteFile(%q): %v", p, err)
		}
		fi, err := os.Lstat(filepath.Join(tr.WS, p))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p, "/") && fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced by a file", p)
		}
		got, _ := os.ReadFile(filepath.Join(tr.WS, p))
		if string(got) != p {
			t.Errorf("%s: read back %q", p, got)
		}
	}
	if _, err := os.Stat(filepath.Join(tr.WS, "missing.txt")); err != nil {
		t.Errorf("the dangling link's target was not created: %v", err)
	}
	assertNoTemp(t, tr.WS)
}

func TestWriteFileRefusesDirectories(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fsys, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	if err := os.Mkdir(filepath.Join(ws, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"d", ".", ws} {
		if err := WriteFile(fsys, p, []byte("x"), 0o644); !errIs(err, syscall.EISDIR) {
			t.Errorf("WriteFile(%q) = %v, want EISDIR", p, err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(fsys, "f/g", []byte("x"), 0o644); !errIs(err, syscall.ENOTDIR) {
		t.Errorf("WriteFile under a file = %v, want ENOTDIR", err)
	}
	assertNoTemp(t, ws)
}

func TestWriteFileMem(t *testing.T) {
	t.Parallel()
	fsys := NewMemFS("/ws")
	if err := afero.WriteFile(fsys, "keep.sh", []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/b/c.txt", "keep.sh", "/ws/abs.txt"} {
		if err := WriteFile(fsys, p, []byte("data"), 0o644); err != nil {
			t.Fatalf("WriteFile(%q): %v", p, err)
		}
		got, err := afero.ReadFile(fsys, p)
		if err != nil || string(got) != "data" {
			t.Fatalf("read back %q: %q, %v", p, got, err)
		}
	}
	if fi, _ := fsys.Stat("keep.sh"); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", fi.Mode().Perm())
	}
	if fi, _ := fsys.Stat("a/b/c.txt"); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	names, _ := afero.ReadDir(fsys, ".")
	for _, fi := range names {
		if strings.HasSuffix(fi.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", fi.Name())
		}
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
