package session

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

type tick struct {
	Writer int `json:"writer"`
	N      int `json:"n"`
}

// appendConcurrently runs writers goroutines, each appending perWriter
// events through stores[w % len(stores)], and checks that every writer saw
// its own seqs increase.
func appendConcurrently(t *testing.T, stores []*Store, session string, writers, perWriter int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			s := stores[w%len(stores)]
			var last int64
			for n := range perWriter {
				ev, err := s.Append(ctx, session, "test.tick", tick{w, n})
				if err != nil {
					errs <- err
					return
				}
				if ev.Seq <= last {
					errs <- fmt.Errorf("writer %d got seq %d after %d", w, ev.Seq, last)
					return
				}
				last = ev.Seq
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// checkGapFree asserts the session holds exactly seqs 1..writers*perWriter,
// each writer's events in its own order.
func checkGapFree(t *testing.T, s *Store, session string, writers, perWriter int) {
	t.Helper()
	evs, err := s.Events(context.Background(), session, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != writers*perWriter {
		t.Fatalf("%d events, want %d", len(evs), writers*perWriter)
	}
	next := make([]int, writers)
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: not gap-free", i, ev.Seq)
		}
		var d tick
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.N != next[d.Writer] {
			t.Fatalf("seq %d is writer %d's event %d, want its event %d", ev.Seq, d.Writer, d.N, next[d.Writer])
		}
		next[d.Writer]++
	}
}

func TestConcurrentAppend(t *testing.T) {
	t.Parallel()
	const writers, perWriter = 8, 200
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		appendConcurrently(t, []*Store{s}, info.ID, writers, perWriter)
		checkGapFree(t, s, info.ID, writers, perWriter)
	})
}

// Two stores on one file stand in for two processes (a run and
// `harness actions approve`): they share no lock but SQLite's.
func TestConcurrentAppendTwoStores(t *testing.T) {
	t.Parallel()
	const writers, perWriter = 4, 100
	eachStore(t, func(t *testing.T, a *Store) {
		b, err := Open(a.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		info := newSession(t, a)
		appendConcurrently(t, []*Store{a, b}, info.ID, writers, perWriter)
		checkGapFree(t, b, info.ID, writers, perWriter)
	})
}
