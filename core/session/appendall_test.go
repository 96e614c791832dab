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
			{"assistant.chunk", map[string]any{"delta": "hel"}},
			{"assistant.message", map[string]any{"content": "hello"}},
			{"agent.response", nil},
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
		_, err := s.AppendAll(ctx, info.ID, []Entry{{"assistant.chunk", nil}, {"assistant.message", []int{1}}})
		if err == nil || !strings.Contains(err.Error(), "assistant.message") || !strings.Contains(err.Error(), "JSON object") {
			t.Fatalf("AppendAll with array data: %v, want an error naming the event and saying it must be an object", err)
		}
		_, err = s.AppendAll(ctx, info.ID, []Entry{{"assistant.chunk", nil}, {"", nil}})
		if err == nil || !strings.Contains(err.Error(), "empty event type") {
			t.Fatalf("AppendAll with an empty type: %v", err)
		}
		_, err = s.AppendAll(ctx, "no-such-session", []Entry{{"assistant.chunk", nil}, {"agent.response", nil}})
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
			group := []Entry{{"assistant.chunk", benchEvent}, {"assistant.chunk", benchEvent}, {"assistant.chunk", benchEvent}, {"assistant.chunk", benchEvent}}
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
