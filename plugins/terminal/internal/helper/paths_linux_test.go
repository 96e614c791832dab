package helper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// relByFilepath is what RelInside computed with path/filepath before the
// helper did without it.
func relByFilepath(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return rel, true
	}
	return "", false
}

func FuzzRelBeneath(f *testing.F) {
	for _, s := range [][2]string{
		{"/ws", "/ws"}, {"/ws", "/ws/a/b"}, {"/ws", "/wsx"}, {"/ws/", "/ws/a/../b"}, {"/", "/a"},
		{"/", "/"}, {"/ws", "/"}, {"/ws", "/ws/.."}, {"/a/b", "/a/b/../../a/b/c"}, {".", "a"},
		{".", ".."}, {"..", "../a"}, {"a", "/a"}, {"../a", "b"}, {"", "a"}, {"/ws", "//ws//x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, base, p string) {
		got, ok := relBeneath(base, p)
		want, wok := relByFilepath(base, p)
		if got != want || ok != wok {
			t.Errorf("relBeneath(%q, %q) = %q, %v; filepath.Rel says %q, %v", base, p, got, ok, want, wok)
		}
	})
}

// TestResolve: resolve agrees with filepath.EvalSymlinks on links to
// directories and files, chains, ".." after a link, and a missing path.
func TestResolve(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "real", "sub", "f"), nil, 0o644))
	must(os.Symlink("real", filepath.Join(dir, "link")))
	must(os.Symlink(filepath.Join(dir, "link", "sub"), filepath.Join(dir, "abs")))
	must(os.Symlink("abs/f", filepath.Join(dir, "chain")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	for _, p := range []string{
		dir, dir + "/real", dir + "/link", dir + "/link/sub/f", dir + "/abs", dir + "/chain",
		dir + "/abs/../sub", dir + "/link/../link/sub", dir + "//real/./sub",
	} {
		want, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := resolve(p)
		if err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v; EvalSymlinks says %q", p, got, err, want)
		}
		if rp := RealPath(p); rp != want {
			t.Errorf("RealPath(%q) = %q, want %q", p, rp, want)
		}
	}
	for _, p := range []string{dir + "/missing", dir + "/dangling", dir + "/real/sub/f/x"} {
		if got, err := resolve(p); err == nil {
			t.Errorf("resolve(%q) = %q, want an error", p, got)
		}
		if rp := RealPath(p); rp != p {
			t.Errorf("RealPath(%q) = %q, want it unchanged", p, rp)
		}
	}
}

func TestWithPWD(t *testing.T) {
	got := withPWD([]string{"A=1", "PWD=/old", "B=2", "PWD=/older"}, "/ws/./x/")
	want := []string{"A=1", "B=2", "PWD=/ws/x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("withPWD = %q, want %q", got, want)
	}
}

// TestCloseOnExec: both ways of marking descriptors close-on-exec reach
// one opened without the flag, and leave those below first alone.
func TestCloseOnExec(t *testing.T) {
	for name, mark := range map[string]func(int) error{"close_range": closeOnExecFrom, "/proc/self/fd": closeOnExecByProc} {
		t.Run(name, func(t *testing.T) {
			low, err := unix.Open(os.DevNull, unix.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(low)
			high, err := unix.Open(os.DevNull, unix.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(high)
			if err := mark(high); err != nil {
				t.Fatal(err)
			}
			for fd, want := range map[int]bool{low: false, high: true} {
				flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
				if err != nil {
					t.Fatal(err)
				}
				if got := flags&unix.FD_CLOEXEC != 0; got != want {
					t.Errorf("descriptor %d: close-on-exec %v, want %v", fd, got, want)
				}
			}
		})
	}
}
