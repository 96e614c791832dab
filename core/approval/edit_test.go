package approval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

func editArgs(t *testing.T, v map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit_file is a write like write_file: inside permissions.write it runs
// directly; outside, the person is asked with the diff of the edit in
// front of them, computed by the host from the file as it is.
func TestEditFileApproval(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/a.go", "docs.md"} {
		if err := os.WriteFile(filepath.Join(ws, p), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	perm := config.Permissions{Write: []string{"src/**"}}
	ctx := context.Background()

	t.Run("inside the globs runs directly", func(t *testing.T) {
		t.Parallel()
		asker := &fakeAsker{answers: []approval.Answer{approval.No}}
		e := newEnv(t, ws, openStore(t, ws), envOptions{perm: perm, asker: asker})
		o := e.ex.Run(ctx, sdk.Call{ID: "1", Tool: "edit_file", Arguments: editArgs(t, map[string]any{"path": "src/a.go", "old_string": "two", "new_string": "2"})})
		if o.Result.Err != nil || asker.count() != 0 || e.src.count() != 1 || len(e.actions(t)) != 0 {
			t.Fatalf("err %v, asked %d, ran %d", o.Result.Err, asker.count(), e.src.count())
		}
		if !strings.Contains(string(e.src.last), `"approved_path":"src/a.go"`) {
			t.Errorf("the plugin got %s, without the path the globs approved", e.src.last)
		}
	})
	t.Run("outside the globs asks with the diff", func(t *testing.T) {
		t.Parallel()
		asker := &fakeAsker{answers: []approval.Answer{approval.Yes}}
		e := newEnv(t, ws, openStore(t, ws), envOptions{perm: perm, asker: asker})
		o := e.ex.Run(ctx, sdk.Call{ID: "1", Tool: "edit_file", Arguments: editArgs(t, map[string]any{"path": "docs.md", "old_string": "two", "new_string": "2"})})
		if o.Result.Err != nil || asker.count() != 1 || e.src.count() != 1 {
			t.Fatalf("err %v, asked %d, ran %d", o.Result.Err, asker.count(), e.src.count())
		}
		act := asker.asked[0]
		wantDiff := "--- a/docs.md\n+++ b/docs.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
		if act.Kind != session.ActionKindWriteFile || act.Tool != "edit_file" || act.Summary != "edit docs.md (+1 −1 lines)" || act.Diff != wantDiff {
			t.Errorf("asked %+v\ndiff %q, want %q", act, act.Diff, wantDiff)
		}
		if !strings.Contains(act.Reason, "outside permissions.write") {
			t.Errorf("reason %q", act.Reason)
		}
		if !strings.Contains(string(e.src.last), `"approved_path":"docs.md"`) {
			t.Errorf("the plugin got %s, without the path the person approved", e.src.last)
		}
	})
	t.Run("an edit that cannot apply is refused before anyone is asked", func(t *testing.T) {
		t.Parallel()
		asker := &fakeAsker{answers: []approval.Answer{approval.Yes}}
		e := newEnv(t, ws, openStore(t, ws), envOptions{perm: perm, asker: asker})
		o := e.ex.Run(ctx, sdk.Call{ID: "1", Tool: "edit_file", Arguments: editArgs(t, map[string]any{"path": "docs.md", "old_string": "tw0", "new_string": "2"})})
		if o.Result.Err == nil || o.Result.Err.Kind != sdk.KindInvalidArgs || !strings.Contains(o.Result.Err.Message, "line 2 (similar): two") || asker.count() != 0 || e.src.count() != 0 {
			t.Fatalf("err %+v, asked %d, ran %d", o.Result.Err, asker.count(), e.src.count())
		}
	})
	t.Run("write_file shows its diff too", func(t *testing.T) {
		t.Parallel()
		asker := &fakeAsker{answers: []approval.Answer{approval.No}}
		e := newEnv(t, ws, openStore(t, ws), envOptions{perm: perm, asker: asker})
		e.ex.Run(ctx, sdk.Call{ID: "1", Tool: "write_file", Arguments: args("path", "docs.md", "content", "one\n")})
		if asker.count() != 1 || !strings.Contains(asker.asked[0].Diff, "-two\n-three\n") || e.src.count() != 0 {
			t.Fatalf("asked %+v, ran %d", asker.asked, e.src.count())
		}
	})
}

// A named pipe as the target of a write or an edit does not hang the host
// while it builds the approval summary: the deadline of the test's context
// is the failure signal.
func TestSummaryOfNamedPipeDoesNotBlock(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	asker := &fakeAsker{answers: []approval.Answer{approval.No}}
	e := newEnv(t, ws, openStore(t, ws), envOptions{asker: asker})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.ex.Run(ctx, sdk.Call{ID: "w", Tool: "write_file", Arguments: args("path", "pipe", "content", "x")})
		e.ex.Run(ctx, sdk.Call{ID: "e", Tool: "edit_file", Arguments: editArgs(t, map[string]any{"path": "pipe", "old_string": "a", "new_string": "b"})})
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("building the approval of a write to a named pipe blocked")
	}
	if asker.count() != 2 || !strings.Contains(asker.asked[0].Summary, "not a regular file") || !strings.Contains(asker.asked[1].Summary, "not a regular file") {
		t.Fatalf("asked %+v", asker.asked)
	}
}

// The model cannot pin a path itself: approved_path is not in the write
// tools' schemas, so a call that sends it is invalid and does not run.
func TestModelCannotSendApprovedPath(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	e := newEnv(t, ws, openStore(t, ws), envOptions{perm: config.Permissions{Write: []string{"**"}}})
	o := e.ex.Run(context.Background(), sdk.Call{ID: "1", Tool: "write_file", Arguments: args("path", "a.md", "content", "x", "approved_path", "b.md")})
	if o.Result.Err == nil || o.Result.Err.Kind != sdk.KindInvalidArgs || e.src.count() != 0 {
		t.Fatalf("err %+v, ran %d", o.Result.Err, e.src.count())
	}
}

// An edit deferred during the run and approved later with `harness
// actions approve` runs with the path it resolves to pinned too.
func TestApprovedLaterIsPinned(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := openStore(t, ws)
	ctx := context.Background()
	run := newEnv(t, ws, store, envOptions{perm: config.Permissions{Unattended: config.UnattendedDefer}})
	o := run.ex.Run(ctx, sdk.Call{ID: "c", Tool: "edit_file", Arguments: editArgs(t, map[string]any{"path": "notes.md", "old_string": "two", "new_string": "2"})})
	if !o.Pending || run.src.count() != 0 {
		t.Fatalf("want a pending action, got %+v", o)
	}
	later := newEnv(t, ws, store, envOptions{})
	if _, err := approval.Apply(ctx, store, later.ex, o.ActionID, true); err != nil {
		t.Fatal(err)
	}
	if later.src.count() != 1 || !strings.Contains(string(later.src.last), `"approved_path":"notes.md"`) {
		t.Fatalf("ran %d times with %s", later.src.count(), later.src.last)
	}
}
