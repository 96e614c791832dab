package approval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

func TestWriteFileDecisions(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	outside := t.TempDir()
	mkdir := func(p string) {
		if err := os.MkdirAll(filepath.Join(ws, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	mkdir("src/pkg")
	mkdir("docs")
	if err := os.WriteFile(filepath.Join(ws, "docs", "old.md"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("src", "lnk")                     // inside the workspace, into an allowed dir
	link("../docs", "src/out")             // inside an allowed dir, out of it
	link(outside, "escape")                // out of the workspace
	link("../docs/new.md", "src/dangling") // a dangling link a write would follow
	store := openStore(t, ws)
	perm := config.Permissions{Write: []string{"src/**", "*.txt"}}

	tests := []struct {
		name, path, content string
		want                want
		summary             string
	}{
		{"inside the globs", "src/pkg/a.go", "package pkg\n", want{}, ""},
		{"top-level glob", "notes.txt", "x", want{}, ""},
		{"absolute inside", filepath.Join(ws, "src", "b.go"), "x", want{}, ""},
		{"outside the globs", "docs/old.md", "one\n2\nthree\nfour\n",
			want{approval.Denied, approval.ByUnattended, `unattended = "deny"`, sdk.KindDenied, 0}, "write docs/old.md (+2 −1 lines)"},
		{"new file outside the globs", "README.md", "a\nb\n",
			want{approval.Denied, approval.ByUnattended, "", sdk.KindDenied, 0}, "create README.md (+2 lines)"},
		{"symlink into an allowed dir", "lnk/pkg/c.go", "x", want{}, ""},
		{"symlink out of an allowed dir", "src/out/d.md", "x",
			want{approval.Denied, approval.ByUnattended, "", sdk.KindDenied, 0}, "create docs/d.md (+1 lines)"},
		{"dangling symlink out of an allowed dir", "src/dangling", "x",
			want{approval.Denied, approval.ByUnattended, "", sdk.KindDenied, 0}, "create docs/new.md"},
		{"symlink out of the workspace", "escape/e.txt", "x", want{kind: sdk.KindPathEscape}, ""},
		{"dot-dot", "../f.txt", "x", want{kind: sdk.KindPathEscape}, ""},
		{"absolute outside", filepath.Join(outside, "g.txt"), "x", want{kind: sdk.KindPathEscape}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, ws, store, envOptions{perm: perm})
			check(t, e, nil, "write_file", args("path", tt.path, "content", tt.content), tt.want)
			if tt.summary == "" {
				return
			}
			if acts := e.actions(t); len(acts) != 1 || acts[0].Kind != session.ActionKindWriteFile || !strings.HasPrefix(acts[0].Summary, tt.summary) {
				t.Errorf("actions %+v, want a write_file action summarized %q", acts, tt.summary)
			}
		})
	}
}

func TestWriteFileAlways(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	asker := &fakeAsker{answers: []approval.Answer{approval.Always}}
	e := newEnv(t, ws, openStore(t, ws), envOptions{asker: asker})
	ctx := context.Background()
	// always covers the path it was given for, and no other.
	for i, tt := range []struct {
		path  string
		asked int
	}{{"a.md", 1}, {"./a.md", 1}, {"b/c.md", 2}} {
		o := e.ex.Run(ctx, sdk.Call{ID: tt.path, Tool: "write_file", Arguments: args("path", tt.path, "content", "x\n")})
		if o.Result.Err != nil {
			t.Fatalf("%s: %v", tt.path, o.Result.Err)
		}
		if asker.count() != tt.asked {
			t.Errorf("call %d (%s): asked %d times, want %d", i, tt.path, asker.count(), tt.asked)
		}
	}
	if q := asker.asked[0]; q.Scope != "writing a.md in this session" || !strings.Contains(q.Diff, "+++ b/a.md") || !strings.Contains(q.Diff, "+x") {
		t.Errorf("question scope %q diff %q", q.Scope, q.Diff)
	}
}
