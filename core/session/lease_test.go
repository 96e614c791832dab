package session

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no `true` to run for a dead pid: %v", err)
	}
	return cmd.Process.Pid
}

func TestLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		first := NewLease()
		info, err := s.CreateSession(ctx, SessionInfo{Agent: "coder", Lease: first})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Session(ctx, info.ID); got.Status != "running" || got.Lease.Owner != first.Owner {
			t.Fatalf("a held session reads %q held by %q, want running held by %q", got.Status, got.Lease.Owner, first.Owner)
		}

		// A second runner of this very process is refused: the holder is live.
		second := NewLease()
		err = s.ReopenSession(ctx, info.ID, "", second)
		var held *HeldError
		if !errors.As(err, &held) || held.Lease.Owner != first.Owner || !strings.Contains(err.Error(), "pid ") {
			t.Fatalf("reopen of a held session: %v, want a HeldError naming the holder", err)
		}
		if err := s.Hold(ctx, info.ID, second); !errors.As(err, &held) {
			t.Fatalf("hold of a held session: %v, want a HeldError", err)
		}
		if err := s.Heartbeat(ctx, info.ID, first.Owner); err != nil {
			t.Fatal(err)
		}
		if err := s.Heartbeat(ctx, info.ID, second.Owner); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("heartbeat of a lease not held: %v, want ErrLeaseLost", err)
		}

		// The holder's process dies: the session is abandoned, and resumable.
		if _, err := s.db.ExecContext(ctx, s.q(`UPDATE sessions SET lease_pid = ? WHERE id = ?`), deadPID(t), info.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Session(ctx, info.ID); got.Status != StatusAbandoned {
			t.Errorf("a session whose runner died reads %q, want abandoned", got.Status)
		}
		if list, _ := s.ListSessions(ctx); len(list) != 1 || list[0].Status != StatusAbandoned {
			t.Errorf("ListSessions: %+v, want the session abandoned", list)
		}
		if err := s.ReopenSession(ctx, info.ID, "", second); err != nil {
			t.Fatalf("reopen of an abandoned session: %v", err)
		}
		if got, _ := s.Session(ctx, info.ID); got.Status != "running" || got.Lease.Owner != second.Owner {
			t.Errorf("after the takeover: %q held by %q", got.Status, got.Lease.Owner)
		}
		if err := s.Heartbeat(ctx, info.ID, first.Owner); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("the old holder's heartbeat: %v, want ErrLeaseLost", err)
		}

		// A heartbeat older than StaleAfter holds nothing, pid alive or not.
		stale := time.Now().Add(-StaleAfter - time.Second).UnixNano()
		if _, err := s.db.ExecContext(ctx, s.q(`UPDATE sessions SET lease_heartbeat = ? WHERE id = ?`), stale, info.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Session(ctx, info.ID); got.Status != StatusAbandoned {
			t.Errorf("a session with a stale heartbeat reads %q, want abandoned", got.Status)
		}
		if err := s.Hold(ctx, info.ID, first); err != nil {
			t.Fatalf("hold after a stale heartbeat: %v", err)
		}
		if err := s.Release(ctx, info.ID, first.Owner); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Session(ctx, info.ID); got.Lease.Owner != "" || got.Status != StatusAbandoned {
			t.Errorf("after release: %+v", got)
		}

		// Ending the session lets the lease go.
		if err := s.ReopenSession(ctx, info.ID, "", second); err != nil {
			t.Fatal(err)
		}
		if err := s.EndSession(ctx, info.ID, "completed", 1); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Session(ctx, info.ID); got.Status != "completed" || got.Lease.Owner != "" {
			t.Errorf("after EndSession: %q held by %q", got.Status, got.Lease.Owner)
		}
	})
}
