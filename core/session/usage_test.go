package session

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)

		zero, err := s.UsageTotals(ctx, info.ID)
		if err != nil || zero != (Usage{Session: info.ID}) {
			t.Errorf("totals without usage = %+v, %v", zero, err)
		}

		records := []Usage{
			{Session: info.ID, Turn: 1, Model: "flash", PromptTokens: 1000, CompletionTokens: 100, CacheHitTokens: 0, CacheMissTokens: 1000, ReasoningTokens: 40, CostUSD: 0.00021},
			{Session: info.ID, Turn: 2, Model: "flash", PromptTokens: 1500, CompletionTokens: 300, CacheHitTokens: 1000, CacheMissTokens: 500, ReasoningTokens: 0, CostUSD: 0.000258},
			{Session: info.ID, Turn: 2, Model: "backup", PromptTokens: 10, CompletionTokens: 1, CacheHitTokens: 5, CacheMissTokens: 5, ReasoningTokens: 1, CostUSD: 0.000001},
		}
		for _, u := range records {
			if err := s.RecordUsage(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.UsageTotals(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := Usage{Session: info.ID, Turn: 2, Model: "backup", PromptTokens: 2510, CompletionTokens: 401,
			CacheHitTokens: 1005, CacheMissTokens: 1505, ReasoningTokens: 41, CostUSD: got.CostUSD}
		if got != want || !near(got.CostUSD, 0.000469) {
			t.Errorf("UsageTotals = %+v\nwant %+v (cost 0.000469)", got, want)
		}

		// Totals are per session.
		other := newSession(t, s)
		if u, _ := s.UsageTotals(ctx, other.ID); u.PromptTokens != 0 {
			t.Errorf("another session's totals = %+v", u)
		}
	})
}

func TestUsageErrors(t *testing.T) {
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
			{"record for unknown session", func() error { return s.RecordUsage(ctx, Usage{Session: "s-nope", Turn: 1}) }, true, "record usage of session s-nope turn 1: session not found"},
			{"negative tokens", func() error { return s.RecordUsage(ctx, Usage{Session: info.ID, PromptTokens: -1}) }, false, "negative"},
			{"totals of unknown session", func() error { _, err := s.UsageTotals(ctx, "s-nope"); return err }, true, "sum usage of session s-nope"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.run()
				if err == nil || errors.Is(err, ErrNotFound) != tt.notFound || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v; want %q (not-found %v)", err, tt.want, tt.notFound)
				}
			})
		}
	})
}
