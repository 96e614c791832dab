package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
	"github.com/harness-agent/harness/sdk"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	fsys, err := Open(tr.WS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })

	tests := []struct {
		name      string
		path      string
		rel, real string
		kind      sdk.ErrorKind // of an *sdk.Error, when the call fails
		why       string        // part of the message
	}{
		{name: "plain", path: "a.txt", rel: "a.txt", real: "a.txt"},
		{name: "cleaned", path: "./sub/../a.txt", rel: "a.txt", real: "a.txt"},
		{name: "root", path: ".", rel: ".", real: "."},
		{name: "absolute inside", path: filepath.Join(tr.WS, "sub", "b.txt"), rel: "sub/b.txt", real: "sub/b.txt"},
		{name: "absolute root", path: tr.WS, rel: ".", real: "."},
		{name: "new file", path: "new/dir/c.txt", rel: "new/dir/c.txt", real: "new/dir/c.txt"},
		{name: "link inside", path: "link_in", rel: "link_in", real: "sub/b.txt"},
		{name: "absolute link inside", path: "link_in_abs", rel: "link_in_abs", real: "a.txt"},
		{name: "linked dir inside", path: "link_dir_in/b.txt", rel: "link_dir_in/b.txt", real: "sub/b.txt"},
		{name: "link to parent inside", path: "sub/up/a.txt", rel: "sub/up/a.txt", real: "a.txt"},
		{name: "dangling inside", path: "dangling_in", rel: "dangling_in", real: "missing.txt"},
		{name: "dotdot after link out is lexical", path: "link_out/../a.txt", rel: "a.txt", real: "a.txt"},

		{name: "dotdot", path: "../x", kind: sdk.KindPathEscape},
		{name: "absolute outside", path: "/etc/passwd", kind: sdk.KindPathEscape},
		{name: "dotdot inside then out", path: "a/../../x", kind: sdk.KindPathEscape},
		{name: "absolute prefix sibling", path: tr.WS + "-evil/x", kind: sdk.KindPathEscape},
		{name: "link to /", path: "link_root", kind: sdk.KindPathEscape, why: `"link_root" is a symbolic link to "/"`},
		{name: "through link to /", path: "link_root/etc/passwd", kind: sdk.KindPathEscape},
		{name: "linked dir out", path: "link_out/passwd", kind: sdk.KindPathEscape, why: `"link_out" is a symbolic link to`},
		{name: "linked dir out, new file", path: "link_out/new.txt", kind: sdk.KindPathEscape},
		{name: "relative link out", path: "link_rel_out", kind: sdk.KindPathEscape},
		{name: "link climbing out", path: "sub/upup/x", kind: sdk.KindPathEscape, why: `"sub/upup" is a symbolic link to "../.."`},
		{name: "dangling out", path: "dangling_out", kind: sdk.KindPathEscape},
		{name: "NUL", path: "a\x00.txt", kind: sdk.KindPathEscape, why: "NUL byte"},
		{name: "empty", path: "", kind: sdk.KindInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rel, err := fsys.Resolve(tt.path)
			real, realErr := fsys.RealPath(tt.path)
			if tt.kind != "" {
				var se *sdk.Error
				if !errors.As(err, &se) || se.Kind != tt.kind {
					t.Fatalf("Resolve(%q) = %q, %v; want an error of kind %s", tt.path, rel, err, tt.kind)
				}
				if !errors.As(realErr, &se) || se.Kind != tt.kind {
					t.Fatalf("RealPath(%q) = %q, %v; want an error of kind %s", tt.path, real, realErr, tt.kind)
				}
				if !strings.Contains(se.Message, tr.WS) || !strings.Contains(se.Message, tt.why) {
					t.Errorf("message %q should name the workspace and say %q", se.Message, tt.why)
				}
				return
			}
			if err != nil || realErr != nil {
				t.Fatalf("Resolve(%q): %v, RealPath: %v", tt.path, err, realErr)
			}
			if rel != tt.rel || real != tt.real {
				t.Errorf("Resolve(%q) = %q, RealPath = %q; want %q, %q", tt.path, rel, real, tt.rel, tt.real)
			}
		})
	}
}

func TestResolveSymlinkLoop(t *testing.T) {
	t.Parallel()
	fsys, err := Open(workspacetest.New(t).WS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	if _, err := fsys.Resolve("loop1/x"); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("got %v, want ELOOP", err)
	}
}

// A workspace configured through a symbolic link accepts absolute paths
// under either spelling, and absolute links into its real location.
func TestResolveLinkedRoot(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(tr.WS, alias); err != nil {
		t.Fatal(err)
	}
	fsys, err := Open(alias)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	for _, p := range []string{filepath.Join(alias, "a.txt"), filepath.Join(tr.WS, "a.txt"), "link_in_abs"} {
		if real, err := fsys.RealPath(p); err != nil || real != "a.txt" {
			t.Errorf("RealPath(%q) = %q, %v; want a.txt", p, real, err)
		}
	}
	if _, err := fsys.Resolve(filepath.Join(tr.Outside, "passwd")); sdk.KindOf(err) != sdk.KindPathEscape {
		t.Errorf("outside path through a linked root: %v", err)
	}
}

// The escape corpus through the afero operations themselves: nothing is
// read from or created outside.
func TestOperationsStayInside(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	fsys, err := Open(tr.WS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	for _, p := range workspacetest.Escapes {
		if _, err := fsys.Open(p); sdk.KindOf(err) != sdk.KindPathEscape {
			t.Errorf("Open(%q): %v, want path_escape", p, err)
		}
		if _, err := fsys.Stat(p); sdk.KindOf(err) != sdk.KindPathEscape {
			t.Errorf("Stat(%q): %v, want path_escape", p, err)
		}
		if _, err := fsys.Create(p); sdk.KindOf(err) != sdk.KindPathEscape {
			t.Errorf("Create(%q): %v, want path_escape", p, err)
		}
		if err := fsys.MkdirAll(p+"/d", 0o755); sdk.KindOf(err) != sdk.KindPathEscape {
			t.Errorf("MkdirAll(%q): %v, want path_escape", p+"/d", err)
		}
		if err := WriteFile(fsys, p, []byte("pwned"), 0o644); sdk.KindOf(err) != sdk.KindPathEscape {
			t.Errorf("WriteFile(%q): %v, want path_escape", p, err)
		}
	}
	tr.AssertOutsideUntouched(t)

	// Removing a link that points out removes the link, not its target.
	if err := fsys.Remove("link_out"); err != nil {
		t.Fatal(err)
	}
	tr.AssertOutsideUntouched(t)
}

// The resolver relies on os.Root to refuse what changes after it looked;
// that refusal must keep mapping to path_escape.
func TestRootRefusalIsEscape(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	root, err := os.OpenRoot(tr.WS)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = root.Open("link_out/passwd")
	if !isEscape(err) {
		t.Fatalf("os.Root's refusal %v is not recognised", err)
	}
	fsys := &RootFS{root: root, dir: tr.WS, realDir: tr.WS}
	if got := fsys.opError("link_out/passwd", err); sdk.KindOf(got) != sdk.KindPathEscape {
		t.Fatalf("opError = %v", got)
	}
}

func TestMemFSConfinement(t *testing.T) {
	t.Parallel()
	fsys := NewMemFS("/ws")
	tests := []struct {
		path string
		rel  string
		kind sdk.ErrorKind
	}{
		{path: "a/b.txt", rel: "a/b.txt"},
		{path: "/ws/a/../c.txt", rel: "c.txt"},
		{path: "../x", kind: sdk.KindPathEscape},
		{path: "/etc/passwd", kind: sdk.KindPathEscape},
		{path: "a/../../x", kind: sdk.KindPathEscape},
		{path: "a\x00b", kind: sdk.KindPathEscape},
		{path: "", kind: sdk.KindInvalidArgs},
	}
	for _, tt := range tests {
		rel, err := fsys.Resolve(tt.path)
		if sdk.KindOf(err) != tt.kind || rel != tt.rel {
			t.Errorf("Resolve(%q) = %q, %v; want %q, kind %q", tt.path, rel, err, tt.rel, tt.kind)
		}
		if tt.kind != "" {
			if err := WriteFile(fsys, tt.path, []byte("x"), 0o644); sdk.KindOf(err) != tt.kind {
				t.Errorf("WriteFile(%q) = %v, want kind %s", tt.path, err, tt.kind)
			}
		}
	}
}
