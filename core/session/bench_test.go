package session

import (
	"context"
	"testing"
)

// BenchmarkAppend measures one durable append: a write transaction and the
// fsync of the WAL that synchronous=FULL asks for, so the number mostly
// reflects the disk.
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
