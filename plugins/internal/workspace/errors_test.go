package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/workspace/workspacetest"
	"github.com/harness-agent/harness/sdk"
)

func errIs(err, target error) bool { return errors.Is(err, target) }

func TestExplain(t *testing.T) {
	t.Parallel()
	tr := workspacetest.New(t)
	fsys, err := Open(tr.WS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	_, escape := fsys.Resolve("../etc/passwd")
	_, missing := fsys.Open("nope.txt")

	tests := []struct {
		name string
		err  error
		kind sdk.ErrorKind
		want string
	}{
		{"escape", escape, sdk.KindPathEscape, fmt.Sprintf(`read_file: "../etc/passwd" is outside the workspace %s`, tr.WS)},
		{"missing", missing, sdk.KindInvalidArgs, fmt.Sprintf(`read_file: "nope.txt" does not exist in the workspace %s`, tr.WS)},
		{"not a dir", &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOTDIR}, sdk.KindInvalidArgs, "one of its parent directories is a file"},
		{"is a dir", &fs.PathError{Op: "write", Path: "x", Err: syscall.EISDIR}, sdk.KindInvalidArgs, "is a directory"},
		{"loop", &fs.PathError{Op: "resolve", Path: "x", Err: syscall.ELOOP}, sdk.KindInvalidArgs, "too many levels of symbolic links"},
		{"permission", os.ErrPermission, sdk.KindInvalidArgs, "permission denied"},
		{"canceled", context.Canceled, sdk.KindCanceled, "read_file: "},
		{"other", errors.New("disk on fire"), sdk.KindInternal, "disk on fire"},
	}
	for _, tt := range tests {
		got := Explain("read_file", fsys, "../etc/passwd", tt.err)
		if tt.name == "missing" {
			got = Explain("read_file", fsys, "nope.txt", tt.err)
		}
		if got.Kind != tt.kind || !strings.Contains(got.Message, tt.want) || !strings.HasPrefix(got.Message, "read_file: ") {
			t.Errorf("%s: got %s %q, want %s containing %q", tt.name, got.Kind, got.Message, tt.kind, tt.want)
		}
	}
}

func TestHolder(t *testing.T) {
	t.Parallel()
	var h Holder
	_, err := h.FS("read_file")
	if sdk.KindOf(err) != sdk.KindInternal || !strings.Contains(err.Error(), "not configured") {
		t.Fatalf("unconfigured: %v", err)
	}
	ctx := context.Background()
	for _, bad := range []string{"", "relative/dir", filepath.Join(t.TempDir(), "missing")} {
		if err := h.Configure(ctx, sdk.PluginConfig{Workspace: bad}); err == nil {
			t.Errorf("Configure(%q) accepted", bad)
		}
	}
	ws := t.TempDir()
	if err := h.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	fsys, err := h.FS("read_file")
	if err != nil || fsys.Root() != ws {
		t.Fatalf("configured: %v, %v", fsys, err)
	}
}
