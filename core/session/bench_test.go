package session

import (
	"context"
	"testing"
)

// BenchmarkAppend measures one committed append: a write transaction into
// the WAL (synchronous=NORMAL: no fsync per commit).
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	s := newStore(b)
	info := newSession(b, s)
	data := map[string]any{"block": 0, "kind": "text", "delta": "The quick brown fox jumps over the lazy dog."}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Append(ctx, info.ID, "assistant.chunk", data); err != nil {
			b.Fatal(err)
		}
	}
}
