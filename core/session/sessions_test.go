package session

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		started := time.Date(2026, 11, 29, 19, 19, 15, 123456789, time.UTC)
		in := SessionInfo{
			ID: "ignored", Status: "ignored",
			Agent: "coder", Model: "flash", ConfigPath: "/home/u/proj/agent.hcl", Workspace: "/home/u/proj",
			StartedAt: started, Lease: NewLease(),
		}
		created, err := s.CreateSession(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^s-20261129-191915-[0-9a-f]{6}$`).MatchString(created.ID) {
			t.Errorf("id %q is not s-YYYYMMDD-HHMMSS-xxxxxx", created.ID)
		}
		if created.Status != "running" {
			t.Errorf("status = %q, want running", created.Status)
		}

		got, err := s.Session(ctx, created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got != created {
			t.Errorf("Session() = %+v\nwant %+v", got, created)
		}

		for turn, u := range []Usage{
			{Model: "flash", PromptTokens: 1000, CompletionTokens: 200, CostUSD: 0.01},
			{Model: "flash", PromptTokens: 1500, CompletionTokens: 300, CostUSD: 0.02},
		} {
			u.Session, u.Turn = created.ID, turn+1
			if err := s.RecordUsage(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		running, err := s.Session(ctx, created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if running.Turns != 2 || running.Tokens != 3000 || !near(running.CostUSD, 0.03) {
			t.Errorf("running totals: turns %d tokens %d cost %v; want 2, 3000, 0.03", running.Turns, running.Tokens, running.CostUSD)
		}

		if err := s.EndSession(ctx, created.ID, "completed", 3); err != nil {
			t.Fatal(err)
		}
		ended, err := s.Session(ctx, created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ended.Status != "completed" || ended.Turns != 3 || ended.EndedAt.IsZero() || ended.EndedAt.Before(started) {
			t.Errorf("after EndSession: %+v", ended)
		}

		err = s.EndSession(ctx, created.ID, "error", 3)
		if err == nil || !strings.Contains(err.Error(), "already ended with status completed") {
			t.Errorf("second EndSession error = %v", err)
		}

		if err := s.ReopenSession(ctx, created.ID, "", NewLease()); err != nil {
			t.Fatal(err)
		}
		reopened, _ := s.Session(ctx, created.ID)
		if reopened.Status != "running" || !reopened.EndedAt.IsZero() {
			t.Errorf("after ReopenSession: %+v", reopened)
		}
		if err := s.EndSession(ctx, created.ID, "interrupted", 4); err != nil {
			t.Errorf("end after reopen: %v", err)
		}
	})
}

func TestSessionErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		tests := []struct {
			name     string
			run      func() error
			notFound bool
			want     string
		}{
			{"relative config path", func() error {
				_, err := s.CreateSession(ctx, SessionInfo{Agent: "a", ConfigPath: "agent.hcl"})
				return err
			}, false, `config path "agent.hcl" is not absolute`},
			{"unknown end status", func() error { return s.EndSession(ctx, info.ID, "done", 1) }, false, `unknown end status "done"`},
			{"end unknown session", func() error { return s.EndSession(ctx, "s-nope", "completed", 1) }, true, "end session s-nope: session not found"},
			{"reopen unknown session", func() error { return s.ReopenSession(ctx, "s-nope", "", NewLease()) }, true, "session not found"},
			{"unknown session", func() error { _, err := s.Session(ctx, "s-nope"); return err }, true, `session "s-nope"`},
			{"empty id", func() error { _, err := s.Session(ctx, ""); return err }, true, "empty session id"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.run()
				if err == nil {
					t.Fatal("no error")
				}
				if errors.Is(err, ErrNotFound) != tt.notFound {
					t.Errorf("errors.Is(ErrNotFound) = %v, want %v: %v", !tt.notFound, tt.notFound, err)
				}
				if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), s.Name()) && tt.name != "empty id" {
					t.Errorf("error %q should contain %q and the store path", err, tt.want)
				}
			})
		}
	})
}

func TestListSessionsNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		var ids []string
		for i := range 3 {
			info, err := s.CreateSession(ctx, SessionInfo{Agent: "coder", StartedAt: base.Add(time.Duration(i) * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, info.ID)
		}
		if err := s.RecordUsage(ctx, Usage{Session: ids[1], Turn: 1, PromptTokens: 10, CompletionTokens: 5, CostUSD: 0.5}); err != nil {
			t.Fatal(err)
		}
		list, err := s.ListSessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 3 || list[0].ID != ids[2] || list[1].ID != ids[1] || list[2].ID != ids[0] {
			t.Fatalf("ListSessions order = %v, want newest first %v", sessionIDs(list), ids)
		}
		if list[1].Tokens != 15 || list[1].CostUSD != 0.5 || list[1].Turns != 1 {
			t.Errorf("usage totals in list = %+v", list[1])
		}
		if list[0].Tokens != 0 || list[0].CostUSD != 0 {
			t.Errorf("session without usage has totals %+v", list[0])
		}
	})
}

func TestSessionPrefixLookup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		at := time.Date(2026, 11, 29, 19, 19, 15, 0, time.UTC)
		a, err := s.CreateSession(ctx, SessionInfo{Agent: "a", StartedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.CreateSession(ctx, SessionInfo{Agent: "b", StartedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.CreateSession(ctx, SessionInfo{Agent: "c", StartedAt: at.AddDate(0, 1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		shared := "s-20261129-191915-"
		tests := []struct {
			name, query, want string
			wantErr           error
		}{
			{"full id", a.ID, a.ID, nil},
			{"unique prefix of the newest", "s-202612", c.ID, nil},
			{"unique prefix by random part", uniquePrefix(a.ID, b.ID), a.ID, nil},
			{"ambiguous prefix", shared, "", ErrAmbiguous},
			{"ambiguous short prefix", "s-", "", ErrAmbiguous},
			{"unknown prefix", "s-1999", "", ErrNotFound},
			{"like metacharacters are literal", "s-2026%", "", ErrNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Session(ctx, tt.query)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Session(%q) error = %v, want %v", tt.query, err, tt.wantErr)
				}
				if got.ID != tt.want {
					t.Errorf("Session(%q) = %q, want %q", tt.query, got.ID, tt.want)
				}
				if tt.wantErr == ErrAmbiguous && (!strings.Contains(err.Error(), a.ID) || !strings.Contains(err.Error(), b.ID)) {
					t.Errorf("ambiguous error should list the matches: %v", err)
				}
			})
		}
	})
}

// uniquePrefix returns the shortest prefix of x that none of others shares.
func uniquePrefix(x string, others ...string) string {
	for n := 1; n < len(x); n++ {
		shared := false
		for _, o := range others {
			shared = shared || strings.HasPrefix(o, x[:n])
		}
		if !shared {
			return x[:n]
		}
	}
	return x
}

func sessionIDs(list []SessionInfo) []string {
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
