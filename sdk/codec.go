package sdk

import (
	"fmt"
	"math/bits"
	"sync"

	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
)

// wireCodec is gRPC's proto codec with buffers that are not cleared. Both
// of its steps fill a buffer whole before anything reads it: Marshal
// appends the encoding to an empty one, Unmarshal copies a message that
// arrived in several frames into one of exactly its length. gRPC's
// default pool clears the whole capacity of every buffer it hands out,
// and has no size between 32 KiB and 1 MiB: each message of 32 KiB to
// 1 MiB (a tool's result of a file, a long conversation) cleared 1 MiB on
// each side. Host and plugins use it on every connection (GRPCDialOptions,
// the SDK's server); a plugin built with another SDK sees the same bytes.
type wireCodec struct{}

// Name is the proto codec's: the other side decodes with its own.
func (wireCodec) Name() string { return grpcproto.Name }

// Marshal implements encoding.CodecV2.
func (wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	m := protoMessage(v)
	if m == nil {
		return nil, fmt.Errorf("sdk: cannot encode %T: not a protocol buffer message", v)
	}
	size := proto.Size(m)
	// proto.Size just ran on m: its cached sizes are current.
	opts := proto.MarshalOptions{UseCachedSize: true}
	if mem.IsBelowBufferPoolingThreshold(size) {
		b, err := opts.Marshal(m)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	buf := wirePool.Get(size)
	b, err := opts.MarshalAppend((*buf)[:0], m)
	if err != nil {
		wirePool.Put(buf)
		return nil, err
	}
	*buf = b
	return mem.BufferSlice{mem.NewBuffer(buf, wirePool)}, nil
}

// Unmarshal implements encoding.CodecV2. The message does not keep the
// buffer: proto.Unmarshal copies what it keeps.
func (wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m := protoMessage(v)
	if m == nil {
		return fmt.Errorf("sdk: cannot decode into %T: not a protocol buffer message", v)
	}
	buf := data.MaterializeToBuffer(wirePool)
	defer buf.Free()
	return proto.Unmarshal(buf.ReadOnlyData(), m)
}

func protoMessage(v any) proto.Message {
	switch v := v.(type) {
	case protoadapt.MessageV1:
		return protoadapt.MessageV2Of(v)
	case protoadapt.MessageV2:
		return v
	}
	return nil
}

// Sizes of wirePool's buffers: powers of two, so a buffer is at most
// twice what it holds. A larger message gets a buffer of its own.
const (
	minWireBuffer = 8  // 256 B
	maxWireBuffer = 26 // 64 MiB
)

// dirtyPool is a mem.BufferPool whose buffers keep what they last held:
// for callers that overwrite all of a buffer before reading it (see
// wireCodec), never for one that reads first.
type dirtyPool struct {
	tiers [maxWireBuffer + 1]sync.Pool
}

var wirePool = &dirtyPool{}

// tier is the exponent of the smallest power of two of at least n bytes
// (at least minWireBuffer).
func tier(n int) int {
	if n <= 1<<minWireBuffer {
		return minWireBuffer
	}
	return bits.Len(uint(n - 1))
}

// Get implements mem.BufferPool: a buffer of length n whose content is
// whatever it held before.
func (p *dirtyPool) Get(n int) *[]byte {
	t := tier(n)
	if t > maxWireBuffer {
		b := make([]byte, n)
		return &b
	}
	if b, ok := p.tiers[t].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, 1<<t)
	return &b
}

// Put implements mem.BufferPool. A buffer whose capacity is not one of
// the pool's sizes is left to the garbage collector.
func (p *dirtyPool) Put(b *[]byte) {
	c := cap(*b)
	t := tier(c)
	if c != 1<<t || t > maxWireBuffer {
		return
	}
	p.tiers[t].Put(b)
}
