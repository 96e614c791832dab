package sdk

import (
	"context"
	"errors"
	"strings"

	"github.com/harness-agent/harness/internal/gopool"
)

// Bounds of one coalesced delta: a merged delta carries at most
// maxCoalescedDeltas provider deltas and stops growing once its text
// reaches maxCoalescedBytes.
const (
	maxCoalescedDeltas = 64
	maxCoalescedBytes  = 16 << 10
	// sendQueue is how many chunks a provider may produce ahead of the
	// gRPC stream before emit blocks.
	sendQueue = 64
)

// canCoalesce reports whether delta next may be appended to delta prev
// without changing what a host assembles: both are text-only deltas (no
// signature) of the same block. Starts, ends, usage, finish and errors
// never merge, nor do deltas of different blocks.
func canCoalesce(prev, next StreamChunk) bool {
	return prev.Type == ChunkBlockDelta && next.Type == ChunkBlockDelta &&
		prev.Index == next.Index && prev.Signature == "" && next.Signature == ""
}

// coalescer sends a provider's chunks from its own goroutine, so the
// provider keeps reading upstream while a send is in flight. Whatever has
// queued up meanwhile is merged: consecutive deltas of one block that are
// already waiting go out as one delta whose text is their concatenation.
// Nothing ever waits for a later delta; a lone delta is sent as is.
type coalescer struct {
	ctx   context.Context
	queue chan StreamChunk // never closed: a late emit must not panic
	ended chan struct{}    // closed by close: the provider's Stream returned
	done  chan struct{}    // closed by the sender when it stops
	send  func(StreamChunk) error
	err   error // set by the sender before done closes
}

// errEmitAfterStream is what emit returns once the provider's Stream has
// returned (a goroutine of the provider still emitting): the chunk is
// dropped, as the stream is over.
var errEmitAfterStream = errors.New("sdk: emit called after the provider's Stream returned; the chunk is dropped")

// IdleGoroutine is the function in which the SDK's idle goroutines wait
// for work: the goroutine that sent a stream's chunks stays, with the
// stack it grew, for the next stream (at most 8 wait, for the process's
// life). A plugin's leak check ignores them:
// goleak.IgnoreTopFunction(sdk.IdleGoroutine).
const IdleGoroutine = gopool.IdleFunction

func newCoalescer(ctx context.Context, send func(StreamChunk) error) *coalescer {
	c := &coalescer{ctx: ctx, queue: make(chan StreamChunk, sendQueue), ended: make(chan struct{}),
		done: make(chan struct{}), send: send}
	gopool.Go(c.run) // it sends through gRPC: a pooled goroutine keeps the stack that grows
	return c
}

// emit queues one chunk; it fails once a send has failed, the stream's
// context ended or the provider's Stream returned.
func (c *coalescer) emit(ch StreamChunk) error {
	select {
	case <-c.ended:
		return errEmitAfterStream
	case <-c.done:
		return c.stopped()
	default:
	}
	select {
	case c.queue <- ch:
		return nil
	case <-c.done:
		return c.stopped()
	case <-c.ctx.Done():
		return c.ctx.Err()
	case <-c.ended:
		return errEmitAfterStream
	}
}

// stopped is emit's error once the sender stopped: its send failure, or
// the end of the provider's Stream.
func (c *coalescer) stopped() error {
	if c.err != nil {
		return c.err
	}
	return errEmitAfterStream
}

// close sends what is queued and returns the first send failure. It is
// called once, when the provider's Stream returned.
func (c *coalescer) close() error {
	close(c.ended)
	<-c.done
	return c.err
}

// next takes the next chunk to send; false once the provider's Stream has
// returned and everything it queued before is taken.
func (c *coalescer) next() (StreamChunk, bool) {
	select {
	case ch := <-c.queue:
		return ch, true
	case <-c.ended:
		select {
		case ch := <-c.queue:
			return ch, true
		default:
			return StreamChunk{}, false
		}
	}
}

func (c *coalescer) run() {
	defer close(c.done)
	var held StreamChunk // a chunk taken from the queue that did not merge
	holding := false
	for {
		var ch StreamChunk
		if holding {
			ch, holding = held, false
		} else {
			var ok bool
			if ch, ok = c.next(); !ok {
				return
			}
		}
		if ch.Type == ChunkBlockDelta {
			ch, held, holding = c.merge(ch)
		}
		if err := c.send(ch); err != nil {
			c.err = err // closing done wakes a blocked emit with it
			return
		}
	}
}

// merge appends to first the deltas already queued behind it that may be
// coalesced with it, and returns the merged delta and the first chunk it
// took that did not merge (held false if none). It never waits for the
// queue. Chunks are passed by value: a pointer would move each taken
// chunk to the heap, one allocation per delta.
func (c *coalescer) merge(first StreamChunk) (StreamChunk, StreamChunk, bool) {
	var text strings.Builder
	var next StreamChunk
	held := false
	size := len(first.Text) // the merged text's length so far
	for n := 1; n < maxCoalescedDeltas && size < maxCoalescedBytes; n++ {
		var ok bool
		select {
		case next, ok = <-c.queue:
		default:
		}
		if !ok {
			break
		}
		if !canCoalesce(first, next) {
			held = true
			break
		}
		if text.Len() == 0 {
			text.WriteString(first.Text)
		}
		text.WriteString(next.Text)
		size += len(next.Text)
	}
	if text.Len() > 0 {
		first.Text = text.String()
	}
	return first, next, held
}
