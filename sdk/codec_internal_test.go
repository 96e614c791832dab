package sdk

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers gRPC's codec, the oracle
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/harness-agent/harness/sdk/proto/toolv1"
)

// split cuts b into buffers of at most n bytes, as frames arrive.
func split(b []byte, n int) mem.BufferSlice {
	var bs mem.BufferSlice
	for len(b) > 0 {
		k := min(n, len(b))
		bs = append(bs, mem.SliceBuffer(bytes.Clone(b[:k])))
		b = b[k:]
	}
	return bs
}

func result(content string) *toolv1.Execute_Event {
	return &toolv1.Execute_Event{Event: &toolv1.Execute_Event_Result{Result: &toolv1.Execute_Result{Content: content}}}
}

// TestWireCodecMatchesProtoCodec: wireCodec encodes as gRPC's proto codec
// does and decodes what it decodes, for messages below, at and above the
// pooling threshold and the sizes gRPC's pool lacks, arriving whole or in
// frames.
func TestWireCodecMatchesProtoCodec(t *testing.T) {
	oracle := encoding.GetCodecV2("proto")
	for _, n := range []int{0, 10, 1 << 10, 32<<10 + 1, 64 << 10, 1<<20 + 3} {
		msg := result(strings.Repeat("abcdefghij", n/10+1)[:n])
		got, err := wireCodec{}.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := oracle.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Materialize(), want.Materialize()) {
			t.Fatalf("%d bytes of content: wireCodec's encoding differs from the proto codec's", n)
		}
		wire := want.Materialize()
		want.Free()
		for _, frame := range []int{len(wire) + 1, 16 << 10, 1000} {
			var back toolv1.Execute_Event
			if err := (wireCodec{}).Unmarshal(split(wire, max(frame, 1)), &back); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(&back, msg) {
				t.Fatalf("%d bytes of content in frames of %d: decoded %v", n, frame, back.GetResult().GetContent()[:min(n, 20)])
			}
		}
		got.Free() // back to the pool, for the next size's decoding to reuse
	}
}

// TestWireCodecReusedBufferHoldsOnlyTheNewMessage: a pooled buffer still
// holds the last message it carried; a shorter message decoded into it
// next comes out as itself, nothing of the old one after it.
func TestWireCodecReusedBufferHoldsOnlyTheNewMessage(t *testing.T) {
	long, short := result(strings.Repeat("L", 60<<10)), result(strings.Repeat("s", 40<<10))
	for range 3 {
		for _, msg := range []*toolv1.Execute_Event{long, short} {
			wire, err := proto.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			var back toolv1.Execute_Event
			if err := (wireCodec{}).Unmarshal(split(wire, 16<<10), &back); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(&back, msg) {
				t.Fatalf("decoded %d bytes of content, want %d", len(back.GetResult().GetContent()), len(msg.GetResult().GetContent()))
			}
		}
	}
}

func TestWireCodecRejectsOtherValues(t *testing.T) {
	if _, err := (wireCodec{}).Marshal("not a message"); err == nil {
		t.Fatal("Marshal of a string: no error")
	}
	if err := (wireCodec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer([]byte{1})}, new(int)); err == nil {
		t.Fatal("Unmarshal into an int: no error")
	}
}

func TestDirtyPoolSizes(t *testing.T) {
	p := &dirtyPool{}
	for _, tc := range []struct{ n, cap int }{{0, 256}, {256, 256}, {257, 512}, {64<<10 + 5, 128 << 10}, {1 << 26, 1 << 26}} {
		b := p.Get(tc.n)
		if len(*b) != tc.n || cap(*b) != tc.cap {
			t.Errorf("Get(%d): len %d cap %d, want len %d cap %d", tc.n, len(*b), cap(*b), tc.n, tc.cap)
		}
	}
	if b := p.Get(1<<26 + 1); cap(*b) != 1<<26+1 {
		t.Errorf("Get beyond the largest size: cap %d, want exactly the length", cap(*b))
	}
	// Buffers not of a pool size are not kept.
	odd := make([]byte, 1000)
	p.Put(&odd)
	if got := p.Get(1000); cap(*got) != 1024 {
		t.Errorf("Get(1000) after putting a 1000-byte buffer: cap %d, want 1024", cap(*got))
	}
}
