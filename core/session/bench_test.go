package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
)

// The store benchmarks run against both implementations (the postgres
// cases skip without HARNESS_TEST_POSTGRES); docs/benchmarks.md has the
// figures and the command.
var benchStores = []struct {
	name string
	open func(testing.TB) *Store
}{
	{"sqlite", newStore},
	{"postgres", newPostgresStore},
}

var benchEvent = map[string]any{"block": 0, "kind": "text", "delta": "The quick brown fox jumps over the lazy dog."}

// BenchmarkAppend measures one committed append from one writer: SQLite, a
// write transaction into the WAL (synchronous=NORMAL: no fsync per
// commit); PostgreSQL, one statement round trip, committed (the server's
// own fsync settings apply).
func BenchmarkAppend(b *testing.B) {
	benchAppend(b, "assistant.chunk", benchEvent, 0)
}

// benchAppend measures committed appends of one event from one writer, on
// each store; size is the event's payload in bytes for the MB/s figure
// (0: none).
func benchAppend(b *testing.B, typ string, data any, size int) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			ctx := context.Background()
			s := bs.open(b)
			info := newSession(b, s)
			b.ReportAllocs()
			if size > 0 {
				b.SetBytes(int64(size))
			}
			for b.Loop() {
				if _, err := s.Append(ctx, info.ID, typ, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkAppendParallel measures appends from many sessions of one
// process at once (GOMAXPROCS×4 goroutines, a session each): a fleet
// worker.
func BenchmarkAppendParallel(b *testing.B) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			ctx := context.Background()
			s := bs.open(b)
			b.SetParallelism(4)
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				info, err := s.CreateSession(ctx, SessionInfo{Agent: "coder", Model: "flash", Workspace: "/ws", Lease: NewLease()})
				if err != nil {
					b.Error(err)
					return
				}
				for pb.Next() {
					if _, err := s.Append(ctx, info.ID, "assistant.chunk", benchEvent); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// BenchmarkListSessions10k measures `sessions list` on a store of 10,000
// sessions, each with a usage record (the list sums usage per session).
func BenchmarkListSessions10k(b *testing.B) {
	const n = 10000
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			ctx := context.Background()
			s := bs.open(b)
			seedSessions(b, s, n)
			b.ResetTimer()
			for b.Loop() {
				list, err := s.ListSessions(ctx)
				if err != nil || len(list) != n {
					b.Fatalf("ListSessions: %d sessions, %v", len(list), err)
				}
			}
		})
	}
}

// seedSessions writes n sessions with a usage record each, in one
// transaction.
func seedSessions(b *testing.B, s *Store, n int) {
	b.Helper()
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	err := s.write(context.Background(), "seed", func(tx *sql.Tx) error {
		for i := range n {
			id := fmt.Sprintf("s-bench-%05d", i)
			if _, err := tx.Exec(s.q(`INSERT INTO sessions (id, agent, model, config_path, workspace, host, status, started_at, ended_at, turns)
				VALUES (?, 'coder', 'flash', '/cfg/agent.hcl', ?, 'bench', 'completed', ?, ?, 3)`),
				id, fmt.Sprintf("/ws/%d", i%50), t0.Add(time.Duration(i)*time.Second).UnixNano(), t0.Add(time.Duration(i)*time.Second+time.Minute).UnixNano()); err != nil {
				return err
			}
			if _, err := tx.Exec(s.q(`INSERT INTO usage (session, turn, model, prompt_tokens, completion_tokens, cache_hit_tokens,
					cache_miss_tokens, reasoning_tokens, cost_usd, recorded_at) VALUES (?, 3, 'flash', 1200, 300, 1000, 200, 0, 0.0012, ?)`),
				id, t0.UnixNano()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// bigEvent is a tool.result of 64 KiB of text, as a read_file of a 64 KiB
// file records it.
var bigEvent = struct {
	CallID  string `json:"call_id"`
	Tool    string `json:"tool"`
	OK      bool   `json:"ok"`
	Content string `json:"content"`
}{"call_1", "read_file", true, strings.Repeat(strings.Repeat("x", 79)+"\n", 64<<10/80+1)[:64<<10]}

// BenchmarkAppend64KiB measures one committed append of a 64 KiB
// tool.result from one writer: "line" is one line repeated (bigEvent),
// "source" 64 KiB of Go source (this package's), "random" base64 of random
// bytes, which no codec shrinks much.
func BenchmarkAppend64KiB(b *testing.B) {
	benchAppend(b, "tool.result", bigEvent, len(bigEvent.Content))
	for _, p := range []struct{ name, content string }{
		{"source", string(testkit.GoSource(b, ".", 64<<10))},
		{"random", randomText(64 << 10)},
	} {
		ev := bigEvent
		ev.Content = p.content
		b.Run(p.name, func(b *testing.B) { benchAppend(b, "tool.result", ev, len(ev.Content)) })
	}
}

// randomText returns n bytes of base64 of random bytes.
func randomText(n int) string {
	raw := make([]byte, n)
	_, _ = rand.Read(raw)
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

// BenchmarkOpenClose measures opening an existing, current store and
// closing it, as every harness process does: the store of a user who ran
// sessions before (its file exists, its schema is current, and the last
// process left it as a clean close leaves it).
func BenchmarkOpenClose(b *testing.B) {
	path := tempStore(b)
	benchProcess(b, path, 2)
	b.ReportAllocs()
	for b.Loop() {
		benchProcess(b, path, 0)
	}
}

// benchProcess opens the store at path, commits the writes of a run of
// turns turns (none for 0: benchRun), and closes it.
func benchProcess(b *testing.B, path string, turns int) {
	b.Helper()
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if turns > 0 {
		benchRun(b, s, turns)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRunStore measures the store's part of a `harness run` of 2
// turns (a read of a file, then an answer) and of 100: "process" is what
// one process does, open the user's store, the run's commits in the order
// and groups the runner makes them (traced from bench's BenchmarkSession),
// close; the store is the same across iterations, as a user's is.
// "commits" is the commits of 2 turns alone, in a store kept open.
func BenchmarkRunStore(b *testing.B) {
	for _, turns := range []int{2, 100} {
		b.Run(fmt.Sprintf("process/turns=%d", turns), func(b *testing.B) {
			path := tempStore(b)
			b.ReportAllocs()
			for b.Loop() {
				benchProcess(b, path, turns)
			}
		})
	}
	b.Run("commits", func(b *testing.B) {
		s := newStore(b)
		b.ReportAllocs()
		for b.Loop() {
			benchRun(b, s, 2)
		}
	})
}

// benchRun commits what a run of turns turns commits (turns-1 reads of a
// file, then an answer), in the groups the runner commits them: the session
// with its session.started, the first request, two a turn, and the last
// chunks with session.ended and the end status: 5 write transactions for 2
// turns (a real run also commits its first chunk apart).
func benchRun(b *testing.B, s *Store, turns int) {
	b.Helper()
	ctx := context.Background()
	info, _, err := s.CreateSessionWith(ctx, SessionInfo{Agent: "reader", Model: "chat", ConfigPath: "/cfg/agent.hcl", Workspace: "/ws", Lease: NewLease()},
		Entry{Type: "session.started", Data: map[string]any{"agent": "reader"}})
	if err != nil {
		b.Fatal(err)
	}
	chunks := func(n int) []Entry {
		e := make([]Entry, n)
		for i := range e {
			e[i] = Entry{Type: "assistant.chunk", Data: benchEvent}
		}
		return e
	}
	usage := func(turn int) Usage {
		return Usage{Session: info.ID, Turn: turn, Model: "chat", PromptTokens: 1200, CompletionTokens: 40, CostUSD: 0.0004}
	}
	must := func(_ any, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(s.Append(ctx, info.ID, "llm.request", map[string]any{"turn": 1}))
	for turn := 1; turn < turns; turn++ {
		must(s.AppendAll(ctx, info.ID, chunks(5), usage(turn)))
		must(s.AppendAll(ctx, info.ID, []Entry{
			{Type: "tool.result", Data: map[string]any{"content": "# Notes"}},
			{Type: "llm.request", Data: map[string]any{"turn": turn + 1}},
		}))
	}
	last := append(chunks(4), Entry{Type: "session.ended", Data: map[string]any{"status": "completed"}})
	must(s.EndSessionWith(ctx, info.ID, StatusCompleted, turns, last, usage(turns)))
}
