package session

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestAppendAllCommitsTheGroupInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		if _, err := s.Append(ctx, info.ID, "session.started", nil); err != nil {
			t.Fatal(err)
		}
		evs, err := s.AppendAll(ctx, info.ID, []Entry{
			{Type: "assistant.chunk", Data: map[string]any{"delta": "hel"}},
			{Type: "assistant.message", Data: map[string]any{"content": "hello"}},
			{Type: "agent.response", Data: nil},
		})
		if err != nil {
			t.Fatalf("AppendAll: %v", err)
		}
		stored, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 3 || len(stored) != 4 {
			t.Fatalf("AppendAll returned %d events, the store has %d; want 3 and 4", len(evs), len(stored))
		}
		for i, ev := range evs {
			got := stored[i+1]
			if ev.Seq != int64(i+2) || got.Seq != ev.Seq || got.Type != ev.Type || string(got.Data) != string(ev.Data) {
				t.Errorf("event %d: returned %+v, stored %+v", i, ev, got)
			}
		}
		if string(evs[2].Data) != "{}" {
			t.Errorf("nil data stored as %s, want {}", evs[2].Data)
		}
	})
}

func TestAppendAllCommitsNoneOnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		_, err := s.AppendAll(ctx, info.ID, []Entry{{Type: "assistant.chunk", Data: nil}, {Type: "assistant.message", Data: []int{1}}})
		if err == nil || !strings.Contains(err.Error(), "assistant.message") || !strings.Contains(err.Error(), "JSON object") {
			t.Fatalf("AppendAll with array data: %v, want an error naming the event and saying it must be an object", err)
		}
		_, err = s.AppendAll(ctx, info.ID, []Entry{{Type: "assistant.chunk", Data: nil}, {Type: "", Data: nil}})
		if err == nil || !strings.Contains(err.Error(), "empty event type") {
			t.Fatalf("AppendAll with an empty type: %v", err)
		}
		_, err = s.AppendAll(ctx, "no-such-session", []Entry{{Type: "assistant.chunk", Data: nil}, {Type: "agent.response", Data: nil}})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("AppendAll to a missing session: %v, want ErrNotFound", err)
		}
		stored, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != 0 {
			t.Fatalf("failed AppendAll calls committed %d events: %+v", len(stored), stored)
		}
	})
}

// BenchmarkAppendAll4 commits four events per transaction, as the loop
// does with the events closing a model request; compare its events/s with
// BenchmarkAppend's one per transaction.
func BenchmarkAppendAll4(b *testing.B) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			ctx := context.Background()
			s := bs.open(b)
			info := newSession(b, s)
			group := []Entry{{Type: "assistant.chunk", Data: benchEvent}, {Type: "assistant.chunk", Data: benchEvent}, {Type: "assistant.chunk", Data: benchEvent}, {Type: "assistant.chunk", Data: benchEvent}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.AppendAll(ctx, info.ID, group); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(4*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// A group committed with a key is committed once: the retry of a Temporal
// activity that commits it again writes nothing (no event, no usage
// twice), while another key, or another session, commits.
func TestAppendAllOnceCommitsAKeyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info, other := newSession(t, s), newSession(t, s)
		group := []Entry{{Type: "llm.request", Data: map[string]any{"turn": 1}}, {Type: "assistant.chunk", Data: map[string]any{"delta": "hi"}}}
		for attempt := 1; attempt <= 3; attempt++ {
			evs, err := s.AppendAllOnce(ctx, info.ID, "run-1/act-5/0", group)
			if err != nil {
				t.Fatalf("attempt %d: %v", attempt, err)
			}
			if want := map[bool]int{true: 2, false: 0}[attempt == 1]; len(evs) != want {
				t.Errorf("attempt %d committed %d events, want %d", attempt, len(evs), want)
			}
			if _, err := s.AppendAllOnce(ctx, info.ID, "run-1/act-5/u0", nil, Usage{Session: info.ID, Turn: 1, PromptTokens: 100, CompletionTokens: 10, CostUSD: 0.01}); err != nil {
				t.Fatalf("attempt %d: usage: %v", attempt, err)
			}
		}
		if _, err := s.AppendAllOnce(ctx, info.ID, "run-1/act-6/0", group[:1]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendAllOnce(ctx, other.ID, "run-1/act-5/0", group[:1]); err != nil {
			t.Fatal(err)
		}
		stored, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for i, ev := range stored {
			types = append(types, ev.Type)
			if ev.Seq != int64(i+1) {
				t.Errorf("event %d has seq %d: a skipped group left a gap", i, ev.Seq)
			}
		}
		if got := strings.Join(types, " "); got != "llm.request assistant.chunk llm.request" {
			t.Errorf("events %s, want the keyed group once, then the other key's", got)
		}
		if evs, _ := s.Events(ctx, other.ID, 0); len(evs) != 1 {
			t.Errorf("the other session has %d events, want 1: keys are per session", len(evs))
		}
		u, err := s.UsageTotals(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		if u.PromptTokens != 100 || u.CompletionTokens != 10 {
			t.Errorf("usage totals %+v, want one request metered once", u)
		}
		if _, err := s.AppendAllOnce(ctx, "s-nothere", "k", group); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("AppendAllOnce to a missing session: %v, want not found", err)
		}
		for i, want := range []bool{true, false} {
			if got, err := s.Claim(ctx, info.ID, "run-1/act-5/sent"); err != nil || got != want {
				t.Errorf("claim %d = %v, %v; want %v", i+1, got, err, want)
			}
		}
		if got, err := s.Claim(ctx, info.ID, "run-1/act-5/0"); err != nil || got {
			t.Errorf("claiming the key of a committed group = %v, %v; want false", got, err)
		}
		if _, err := s.AppendAllOnce(ctx, info.ID, "", group); err == nil {
			t.Error("AppendAllOnce without a key must fail")
		}
	})
}
