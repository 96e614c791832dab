package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// seedStore fills a closed store file with a session, two events and an
// action, and returns its path and the session id.
func seedStore(t *testing.T) (path, session string) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(tempStore(t))
	if err != nil {
		t.Fatal(err)
	}
	info := newSession(t, s)
	for _, typ := range []string{"session.started", "agent.response"} {
		if _, err := s.Append(ctx, info.ID, typ, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ProposeAction(ctx, Action{Session: info.ID, CallID: "c", Tool: "terminal", Kind: "terminal"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Path(), info.ID
}

// checkReadable asserts the seeded records can still be read.
func checkReadable(t *testing.T, s *Store, session string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Session(ctx, session); err != nil {
		t.Errorf("Session: %v", err)
	}
	if list, err := s.ListSessions(ctx); err != nil || len(list) == 0 {
		t.Errorf("ListSessions = %d sessions, %v", len(list), err)
	}
	if evs, err := s.Events(ctx, session, 0); err != nil || len(evs) < 2 {
		t.Errorf("Events = %d events, %v", len(evs), err)
	}
	if acts, err := s.Actions(ctx, session, ""); err != nil || len(acts) != 1 {
		t.Errorf("Actions = %d actions, %v", len(acts), err)
	}
	if _, err := s.UsageTotals(ctx, session); err != nil {
		t.Errorf("UsageTotals: %v", err)
	}
}

// checkWritesFail asserts that the writes named in only, or every kind of
// write when only is empty, fail with an error that names the store and
// carries hint.
func checkWritesFail(t *testing.T, s *Store, session, hint string, only ...string) {
	t.Helper()
	ctx := context.Background()
	actions, err := s.Actions(ctx, session, "pending")
	if err != nil || len(actions) == 0 {
		t.Fatalf("pending actions: %v, %v", actions, err)
	}
	writes := map[string]func() error{
		"Append": func() error {
			_, err := s.Append(ctx, session, "tool.result", map[string]string{"out": strings.Repeat("x", 1<<17)})
			return err
		},
		"CreateSession": func() error { _, err := s.CreateSession(ctx, SessionInfo{Agent: "a"}); return err },
		"EndSession":    func() error { return s.EndSession(ctx, session, "completed", 1) },
		"RecordUsage":   func() error { return s.RecordUsage(ctx, Usage{Session: session, Turn: 1, PromptTokens: 1}) },
		"ProposeAction": func() error {
			_, err := s.ProposeAction(ctx, Action{Session: session, Kind: "tool", Arguments: json.RawMessage(`{"big":"` + strings.Repeat("y", 1<<17) + `"}`)})
			return err
		},
		"DecideAction": func() error { return s.DecideAction(ctx, actions[0].ID, "approved", "user", "") },
	}
	if len(only) > 0 {
		picked := map[string]func() error{}
		for _, name := range only {
			picked[name] = writes[name]
		}
		writes = picked
	}
	for name, write := range writes {
		err := write()
		if err == nil {
			t.Errorf("%s succeeded", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, s.Path()) || !strings.Contains(msg, hint) {
			t.Errorf("%s error %q should name %s and say %q", name, msg, s.Path(), hint)
		}
	}
}

// TestReadOnlyStore opens the store with SQLite's mode=ro. That stands in
// for a file the process may not write: chmod 0400 does not stop root, who
// runs the tests in some sandboxes (TestReadOnlyFile covers chmod for
// everyone else).
func TestReadOnlyStore(t *testing.T) {
	t.Parallel()
	path, session := seedStore(t)
	s, err := openFile(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkReadable(t, s, session)
	checkWritesFail(t, s, session, "the database is read-only")
	checkReadable(t, s, session)
}

func TestReadOnlyFile(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes a 0400 file anyway; TestReadOnlyStore covers the read-only case")
	}
	path, session := seedStore(t)
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkReadable(t, s, session)
	checkWritesFail(t, s, session, "the database is read-only")
	checkReadable(t, s, session)
}

// TestDiskFull caps the database at its current size with max_page_count,
// which makes SQLite report SQLITE_FULL exactly as a full disk does.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, session := seedStore(t)
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// max_page_count holds per connection: keep just one.
	s.db.SetMaxOpenConns(1)
	var pages int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}

	// Small writes may still fit in free space of existing pages.
	checkWritesFail(t, s, session, "the disk is full", "Append", "ProposeAction")
	checkReadable(t, s, session)

	// Once there is room again, appends go on with the next seq: the failed
	// ones used none.
	if _, err := s.db.ExecContext(ctx, "PRAGMA max_page_count = 1000000"); err != nil {
		t.Fatal(err)
	}
	ev, err := s.Append(ctx, session, "session.ended", nil)
	if err != nil || ev.Seq != 3 {
		t.Errorf("append after the disk has room: seq %d, %v; want 3", ev.Seq, err)
	}
	var check string
	if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v", check, err)
	}
}
