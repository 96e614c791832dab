package sdk

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func delta(index int, text string) StreamChunk {
	return StreamChunk{Type: ChunkBlockDelta, Index: index, Text: text}
}

// drain runs a coalescer over chunks that are all queued before it starts
// (the case of a consumer slower than the provider) and returns what it
// sends.
func drain(t *testing.T, in []StreamChunk) []StreamChunk {
	t.Helper()
	var sent []StreamChunk
	c := &coalescer{ctx: context.Background(), queue: make(chan StreamChunk, len(in)), ended: make(chan struct{}),
		done: make(chan struct{}), send: func(ch StreamChunk) error { sent = append(sent, ch); return nil }}
	for _, ch := range in {
		c.queue <- ch
	}
	close(c.ended)
	c.run()
	return sent
}

func TestCoalesceRule(t *testing.T) {
	t.Parallel()
	start := StreamChunk{Type: ChunkBlockStart, Index: 0, Kind: BlockText}
	end := StreamChunk{Type: ChunkBlockEnd, Index: 0}
	finish := StreamChunk{Type: ChunkFinish, Reason: "stop", Usage: &Usage{PromptTokens: 1}}
	usage := StreamChunk{Type: ChunkUsage, Usage: &Usage{PromptTokens: 2}}
	sig := StreamChunk{Type: ChunkBlockDelta, Index: 0, Signature: "sig"}
	sigText := StreamChunk{Type: ChunkBlockDelta, Index: 0, Text: "t", Signature: "sig"}
	tenK := strings.Repeat("x", 10<<10)
	eightK, oneK := strings.Repeat("x", 8<<10), strings.Repeat("y", 1<<10)
	smallAfterLarge := []StreamChunk{delta(0, eightK)}
	for range 9 {
		smallAfterLarge = append(smallAfterLarge, delta(0, oneK))
	}
	many := make([]StreamChunk, 65)
	for i := range many {
		many[i] = delta(0, "w")
	}
	for _, tc := range []struct {
		name string
		in   []StreamChunk
		want []StreamChunk
	}{
		{"same block merges", []StreamChunk{start, delta(0, "a"), delta(0, "b"), delta(0, "c"), end, finish},
			[]StreamChunk{start, delta(0, "abc"), end, finish}},
		{"tool-call arguments concatenate", []StreamChunk{delta(2, `{"pa`), delta(2, `th":`), delta(2, `"a"}`)},
			[]StreamChunk{delta(2, `{"path":"a"}`)}},
		{"a lone delta is sent as is", []StreamChunk{delta(0, "a"), end}, []StreamChunk{delta(0, "a"), end}},
		{"empty deltas merge harmlessly", []StreamChunk{delta(0, ""), delta(0, "a"), delta(0, "")}, []StreamChunk{delta(0, "a")}},
		{"different blocks never merge", []StreamChunk{delta(0, "a"), delta(1, "b"), delta(0, "c")},
			[]StreamChunk{delta(0, "a"), delta(1, "b"), delta(0, "c")}},
		{"never across an end", []StreamChunk{delta(0, "a"), end, delta(0, "b")}, []StreamChunk{delta(0, "a"), end, delta(0, "b")}},
		{"never across a start", []StreamChunk{delta(0, "a"), start, delta(0, "b")}, []StreamChunk{delta(0, "a"), start, delta(0, "b")}},
		{"never across usage or finish", []StreamChunk{delta(0, "a"), usage, delta(0, "b"), finish, delta(0, "c")},
			[]StreamChunk{delta(0, "a"), usage, delta(0, "b"), finish, delta(0, "c")}},
		{"a signature never merges", []StreamChunk{delta(0, "a"), sig, delta(0, "b"), sigText, delta(0, "c")},
			[]StreamChunk{delta(0, "a"), sig, delta(0, "b"), sigText, delta(0, "c")}},
		{"at most 64 deltas in one", many, []StreamChunk{delta(0, strings.Repeat("w", 64)), delta(0, "w")}},
		{"stops growing at 16 KiB", []StreamChunk{delta(0, tenK), delta(0, tenK), delta(0, tenK)},
			[]StreamChunk{delta(0, tenK+tenK), delta(0, tenK)}},
		{"grows up to 16 KiB after a large first delta", smallAfterLarge,
			[]StreamChunk{delta(0, eightK+strings.Repeat(oneK, 8)), delta(0, oneK)}},
		{"nothing to send", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, drain(t, tc.in)); diff != "" {
				t.Fatalf("sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCoalesceSlowConsumer: while a send is blocked, the provider keeps
// emitting; what queued up meanwhile goes out merged, and the text is the
// same as sent one by one.
func TestCoalesceSlowConsumer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var sent []StreamChunk
	c := newCoalescer(context.Background(), func(ch StreamChunk) error {
		if len(sent) == 0 {
			<-release // the consumer is slow to take the first chunk
		}
		sent = append(sent, ch)
		return nil
	})
	in := []StreamChunk{{Type: ChunkBlockStart, Index: 0, Kind: BlockText}}
	for _, w := range strings.Fields("the quick brown fox jumps over the lazy dog") {
		in = append(in, delta(0, w+" "))
	}
	in = append(in, StreamChunk{Type: ChunkBlockEnd, Index: 0}, StreamChunk{Type: ChunkFinish, Reason: "stop"})
	for _, ch := range in {
		if err := c.emit(ch); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	want := []StreamChunk{in[0], delta(0, "the quick brown fox jumps over the lazy dog "), in[len(in)-2], in[len(in)-1]}
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Fatalf("sent (-want +got):\n%s", diff)
	}
}

// TestCoalesceSendFailure: once a send fails, emit and close report it and
// the provider is not left blocked.
func TestCoalesceSendFailure(t *testing.T) {
	t.Parallel()
	gone := errors.New("the host hung up")
	c := newCoalescer(context.Background(), func(StreamChunk) error { return gone })
	if err := c.emit(delta(0, "a")); err != nil {
		t.Fatalf("the first emit only queues: %v", err)
	}
	<-c.done
	// More than the queue holds: every emit returns instead of blocking.
	for i := 0; i < 2*sendQueue; i++ {
		if err := c.emit(delta(0, "b")); !errors.Is(err, gone) {
			t.Fatalf("emit %d after a failed send: %v", i, err)
		}
	}
	if err := c.close(); !errors.Is(err, gone) {
		t.Fatalf("close: %v", err)
	}
}

// TestCoalesceCanceled: a provider blocked on a full queue returns when the
// stream's context ends.
func TestCoalesceCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	block := make(chan struct{})
	c := newCoalescer(ctx, func(StreamChunk) error { <-block; return nil })
	defer func() { cancel(); close(block); _ = c.close() }()
	var err error
	for i := 0; i < 2*sendQueue+2 && err == nil; i++ {
		if i == sendQueue+1 {
			cancel() // the sender holds one, the queue is full: the next emit blocks
		}
		err = c.emit(delta(0, "a"))
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("emit on a full queue after cancel: %v", err)
	}
}

// TestCoalesceEmitAfterStream: a provider goroutine that emits after its
// Stream returned gets an error, not a panic, and nothing more is sent.
func TestCoalesceEmitAfterStream(t *testing.T) {
	t.Parallel()
	var sent []StreamChunk
	c := newCoalescer(context.Background(), func(ch StreamChunk) error { sent = append(sent, ch); return nil })
	if err := c.emit(delta(0, "a")); err != nil {
		t.Fatal(err)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if err := c.emit(delta(0, "late")); !errors.Is(err, errEmitAfterStream) {
		t.Fatalf("emit after the stream: %v", err)
	}
	if diff := cmp.Diff([]StreamChunk{delta(0, "a")}, sent); diff != "" {
		t.Fatalf("sent (-want +got):\n%s", diff)
	}
}
