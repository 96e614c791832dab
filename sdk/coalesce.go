package sdk

import (
	"context"
	"strings"
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
	queue chan StreamChunk
	done  chan struct{}
	send  func(StreamChunk) error
	err   error // set by the sender before done closes
}

func newCoalescer(ctx context.Context, send func(StreamChunk) error) *coalescer {
	c := &coalescer{ctx: ctx, queue: make(chan StreamChunk, sendQueue), done: make(chan struct{}), send: send}
	go c.run()
	return c
}

// emit queues one chunk; it fails once a send has failed or the stream's
// context ended.
func (c *coalescer) emit(ch StreamChunk) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	select {
	case c.queue <- ch:
		return nil
	case <-c.done:
		return c.err
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
}

// close sends what is queued and returns the first send failure.
func (c *coalescer) close() error {
	close(c.queue)
	<-c.done
	return c.err
}

func (c *coalescer) run() {
	defer close(c.done)
	var held *StreamChunk // a chunk taken from the queue that did not merge
	for {
		var ch StreamChunk
		if held != nil {
			ch, held = *held, nil
		} else {
			var ok bool
			if ch, ok = <-c.queue; !ok {
				return
			}
		}
		if ch.Type == ChunkBlockDelta {
			ch, held = c.merge(ch)
		}
		if err := c.send(ch); err != nil {
			c.err = err // closing done wakes a blocked emit with it
			return
		}
	}
}

// merge appends to first the deltas already queued behind it that may be
// coalesced with it, and returns the merged delta and the first chunk it
// took that did not merge (nil if none). It never waits for the queue.
func (c *coalescer) merge(first StreamChunk) (StreamChunk, *StreamChunk) {
	var text strings.Builder
	var held *StreamChunk
	for n := 1; n < maxCoalescedDeltas && len(first.Text)+text.Len() < maxCoalescedBytes; n++ {
		var next StreamChunk
		var ok bool
		select {
		case next, ok = <-c.queue:
		default:
		}
		if !ok {
			break
		}
		if !canCoalesce(first, next) {
			held = &next
			break
		}
		if text.Len() == 0 {
			text.WriteString(first.Text)
		}
		text.WriteString(next.Text)
	}
	if text.Len() > 0 {
		first.Text = text.String()
	}
	return first, held
}
