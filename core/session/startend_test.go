package session

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCreateSessionWith: the session and its first events commit together,
// numbered from 1; an entry that cannot be stored leaves no session behind.
func TestCreateSessionWith(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info, evs, err := s.CreateSessionWith(ctx, SessionInfo{Agent: "coder", Model: "flash", ConfigPath: "/cfg/agent.hcl", Workspace: "/ws"},
			Entry{Type: "session.started", Data: map[string]string{"task": "t"}}, Entry{Type: "note", Data: map[string]int{"n": 2}})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 || evs[0].Session != info.ID || evs[0].Time.IsZero() {
			t.Fatalf("events = %+v, want seq 1 and 2 of session %s", evs, info.ID)
		}
		stored, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != 2 || stored[0].Type != "session.started" || string(stored[0].Data) != `{"task":"t"}` || stored[1].Type != "note" {
			t.Errorf("stored events = %+v", stored)
		}

		before, err := s.ListSessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.CreateSessionWith(ctx, SessionInfo{Agent: "coder", ConfigPath: "/cfg/agent.hcl", Workspace: "/ws"},
			Entry{Type: "session.started", Data: []int{1}})
		if err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
			t.Errorf("an array as event data: error %v, want one saying it must be a JSON object", err)
		}
		after, err := s.ListSessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before) {
			t.Errorf("a refused first event left a session behind: %d sessions, want %d", len(after), len(before))
		}
	})
}

// TestEndSessionWith: the last events, their usage and the end commit
// together; ending a session that is not running still stores the events
// and says why the end was refused; an unknown session stores nothing.
func TestEndSessionWith(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		if _, err := s.Append(ctx, info.ID, "llm.request", nil); err != nil {
			t.Fatal(err)
		}
		evs, err := s.EndSessionWith(ctx, info.ID, StatusCompleted, 2,
			[]Entry{{Type: "llm.usage"}, {Type: "session.ended", Data: map[string]string{"status": "completed"}}},
			Usage{Session: info.ID, Turn: 2, Model: "flash", PromptTokens: 10, CompletionTokens: 5, CostUSD: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 || evs[0].Seq != 2 || evs[1].Seq != 3 || evs[1].Type != "session.ended" {
			t.Fatalf("events = %+v, want seq 2 and 3", evs)
		}
		ended, err := s.Session(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ended.Status != StatusCompleted || ended.Turns != 2 || ended.Tokens != 15 || !near(ended.CostUSD, 0.5) || ended.EndedAt.IsZero() || ended.Lease.Owner != "" {
			t.Errorf("after EndSessionWith: %+v", ended)
		}

		evs, err = s.EndSessionWith(ctx, info.ID, StatusError, 2, []Entry{{Type: "error", Data: map[string]string{"message": "late"}}})
		if err == nil || !strings.Contains(err.Error(), "already ended with status completed") {
			t.Errorf("ending an ended session: error %v, want one naming its status", err)
		}
		if len(evs) != 1 || evs[0].Seq != 4 {
			t.Errorf("ending an ended session returned events %+v, want the one it stored (seq 4)", evs)
		}
		stored, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != 4 || stored[3].Type != "error" {
			t.Errorf("stored events = %+v, want the refused end's event kept", stored)
		}
		if again, _ := s.Session(ctx, info.ID); again.Status != StatusCompleted {
			t.Errorf("status after a refused end = %q, want completed", again.Status)
		}

		_, err = s.EndSessionWith(ctx, "s-nope", StatusCompleted, 1, []Entry{{Type: "session.ended"}})
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("ending an unknown session: error %v, want ErrNotFound", err)
		}
	})
}
