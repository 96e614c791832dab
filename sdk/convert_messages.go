package sdk

import (
	"slices"
	"sync"

	"google.golang.org/grpc"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/harness-agent/harness/sdk/proto/providerv1"
)

// messageCache converts the messages of Stream requests, reusing the
// conversions and encodings of the previous request's messages that are
// unchanged (compared by position: a conversation mostly grows at its
// end), so a turn of a long session converts and encodes only its new
// messages. The converted messages are shared between requests and never
// modified.
type messageCache struct {
	mu   sync.Mutex
	msgs []Message // what pms convert, their slices copied
	pms  []*providerv1.Message
	wire [][]byte // the encodings of pms; nil where proto.Marshal failed
}

// convert returns msgs as protocol messages, and their encodings.
func (c *messageCache) convert(msgs []Message) ([]*providerv1.Message, [][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.msgs) > len(msgs) {
		c.msgs, c.pms, c.wire = c.msgs[:len(msgs)], c.pms[:len(msgs)], c.wire[:len(msgs)]
	}
	for i, m := range msgs {
		if i < len(c.msgs) && SameMessage(c.msgs[i], m) {
			continue
		}
		pm := messageToProto(m)
		wire, err := proto.Marshal(pm)
		switch {
		case err != nil:
			wire = nil // the request is then encoded whole, and fails there
		case wire == nil:
			wire = []byte{} // an empty message
		}
		m.ToolCalls, m.ReasoningBlocks = slices.Clone(m.ToolCalls), slices.Clone(m.ReasoningBlocks)
		if i < len(c.msgs) {
			c.msgs[i], c.pms[i], c.wire[i] = m, pm, wire
		} else {
			c.msgs, c.pms, c.wire = append(c.msgs, m), append(c.pms, pm), append(c.wire, wire)
		}
	}
	return slices.Clone(c.pms), slices.Clone(c.wire)
}

// SameMessage says whether a and b are equal in every field (a nil and
// an empty slice alike): for caches that keep what they derived from a
// message while it is unchanged.
func SameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Reasoning == b.Reasoning && a.ToolCallID == b.ToolCallID &&
		a.Pinned == b.Pinned && a.IsError == b.IsError &&
		slices.Equal(a.ToolCalls, b.ToolCalls) && slices.Equal(a.ReasoningBlocks, b.ReasoningBlocks)
}

// messagesField is the number of Stream_Request.messages.
var messagesField = (&providerv1.Stream_Request{}).ProtoReflect().Descriptor().Fields().ByName("messages").Number()

// requestCodec encodes one Stream request from its messages' cached
// encodings: the request without its messages, then each message as the
// repeated field, which is the wire form of the whole request (a parser
// takes a message's fields in any order). Everything else, the stream's
// chunks among it, goes through wireCodec.
type requestCodec struct {
	req  *providerv1.Stream_Request
	wire [][]byte // the encodings of req.Messages
}

// callOption makes the call use the codec.
func (c *requestCodec) callOption() grpc.CallOption { return grpc.ForceCodecV2(c) }

// Name is the proto codec's: the server decodes with it.
func (c *requestCodec) Name() string { return grpcproto.Name }

// Marshal implements encoding.CodecV2.
func (c *requestCodec) Marshal(v any) (mem.BufferSlice, error) {
	if v != c.req || len(c.wire) != len(c.req.Messages) || slices.ContainsFunc(c.wire, func(w []byte) bool { return w == nil }) {
		return wireCodec{}.Marshal(v)
	}
	msgs := c.req.Messages
	c.req.Messages = nil
	head, err := proto.Marshal(c.req)
	c.req.Messages = msgs
	if err != nil {
		return nil, err
	}
	n := len(head)
	for _, w := range c.wire {
		n += protowire.SizeTag(messagesField) + protowire.SizeBytes(len(w))
	}
	b := make([]byte, 0, n)
	b = append(b, head...)
	for _, w := range c.wire {
		b = protowire.AppendTag(b, messagesField, protowire.BytesType)
		b = protowire.AppendBytes(b, w)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

// Unmarshal implements encoding.CodecV2.
func (c *requestCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return wireCodec{}.Unmarshal(data, v)
}
