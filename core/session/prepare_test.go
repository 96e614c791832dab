package session

import (
	"context"
	"maps"
	"slices"
	"testing"
)

// A run's commits prepare each of their statements once per store, and
// only those: the statements of a second run in the same store are the
// ones the first prepared, and no write opened a second connection to
// prepare one.
func TestWritesPrepareOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	run := func() map[string]any {
		lease := NewLease()
		info, err := s.CreateSession(ctx, SessionInfo{Agent: "coder", Model: "flash", Workspace: "/ws", Lease: lease})
		if err != nil {
			t.Fatal(err)
		}
		u := Usage{Session: info.ID, Turn: 1, Model: "flash", PromptTokens: 10, CompletionTokens: 2}
		for range 2 {
			if _, err := s.Append(ctx, info.ID, "llm.request", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := s.AppendAll(ctx, info.ID, []Entry{{Type: "assistant.chunk"}, {Type: "tool.call"}}, u); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.EndSession(ctx, info.ID, StatusCompleted, 2); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, info.ID, lease.Owner); err != nil {
			t.Fatal(err)
		}
		s.stmtMu.Lock()
		defer s.stmtMu.Unlock()
		got := make(map[string]any, len(s.stmts))
		for q, st := range s.stmts {
			got[q] = st
		}
		return got
	}
	first := run()
	want := []string{appendEventSQL, endSessionSQL, insertSessionSQL, insertUsageSQL, releaseSQL}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(first)); !slices.Equal(got, want) {
		t.Errorf("prepared statements:\n%q\nwant\n%q", got, want)
	}
	if second := run(); !maps.Equal(first, second) {
		t.Error("the second run prepared its statements again")
	}
	if n := s.db.Stats().OpenConnections; n != 1 {
		t.Errorf("%d connections open, want 1", n)
	}
}
