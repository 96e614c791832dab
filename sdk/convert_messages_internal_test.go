package sdk

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/harness-agent/harness/sdk/proto/providerv1"
)

// TestMessageCacheComparesEveryField: SameMessage must compare every
// field of Message, or a changed message would be sent as it was.
func TestMessageCacheComparesEveryField(t *testing.T) {
	t.Parallel()
	if n := reflect.TypeFor[Message]().NumField(); n != 8 {
		t.Fatalf("Message has %d fields, SameMessage compares 8: compare the new ones", n)
	}
	base := Message{Role: RoleAssistant, Content: "c", Reasoning: "r", ToolCalls: []ToolCall{{ID: "1", Name: "n", Arguments: "{}"}},
		ToolCallID: "t", ReasoningBlocks: []ReasoningBlock{{Text: "x", Signature: "s"}}}
	for i, edit := range []func(*Message){
		func(m *Message) { m.Role = RoleUser },
		func(m *Message) { m.Content = "d" },
		func(m *Message) { m.Reasoning = "s" },
		func(m *Message) { m.ToolCalls = []ToolCall{{ID: "2", Name: "n", Arguments: "{}"}} },
		func(m *Message) { m.ToolCallID = "u" },
		func(m *Message) { m.ReasoningBlocks = []ReasoningBlock{{Text: "x", Signature: "s", Redacted: true}} },
		func(m *Message) { m.Pinned = true },
		func(m *Message) { m.IsError = true },
	} {
		m := base
		edit(&m)
		if SameMessage(base, m) {
			t.Errorf("edit %d: the same message", i)
		}
	}
	if !SameMessage(base, base) {
		t.Error("a message differs from itself")
	}
}

// TestMessageCacheMatchesConversion: over random conversations (messages
// appended, edited in place, their slices mutated by the caller,
// replaced, compacted, truncated), the cached conversion equals the
// conversion of every message, and the request the codec encodes from the
// cached encodings decodes to the request.
func TestMessageCacheMatchesConversion(t *testing.T) {
	t.Parallel()
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 22))
		text := func() string { return []string{"", "a", "b", "<&>", fmt.Sprint(r.IntN(100))}[r.IntN(5)] }
		message := func() Message {
			m := Message{Role: []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool}[r.IntN(4)], Content: text(), Reasoning: text(),
				ToolCallID: text(), Pinned: r.IntN(2) == 0, IsError: r.IntN(2) == 0}
			for range r.IntN(3) {
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: text(), Name: text(), Arguments: text()})
			}
			for range r.IntN(2) {
				m.ReasoningBlocks = append(m.ReasoningBlocks, ReasoningBlock{Text: text(), Signature: text(), Redacted: r.IntN(2) == 0})
			}
			return m
		}
		var c messageCache
		var msgs []Message
		for step := range 60 {
			switch op := r.IntN(10); {
			case op < 5:
				msgs = append(msgs, message(), message())
			case op < 7 && len(msgs) > 0:
				m := &msgs[r.IntN(len(msgs))]
				switch {
				case len(m.ToolCalls) > 0 && r.IntN(2) == 0:
					m.ToolCalls[0].Arguments += "x" // the caller's slice, mutated
				case len(m.ReasoningBlocks) > 0 && r.IntN(2) == 0:
					m.ReasoningBlocks[0].Signature += "x"
				default:
					m.Pinned = !m.Pinned
				}
			case op < 8 && len(msgs) > 2:
				keep := r.IntN(len(msgs) - 1)
				msgs = append([]Message{msgs[0], message()}, msgs[len(msgs)-keep:]...)
			case op < 9 && len(msgs) > 0:
				msgs = msgs[:r.IntN(len(msgs))]
			default:
				msgs = append([]Message(nil), msgs...)
				if len(msgs) > 0 {
					msgs[r.IntN(len(msgs))] = message()
				}
			}
			got := &providerv1.Stream_Request{Handle: &providerv1.Handle{Id: "h", Generation: 3}, ToolChoice: "auto", MaxOutput: 7,
				Tools: []*providerv1.ToolDefinition{{Name: "read_file", ParametersJson: []byte(`{}`)}}}
			codec := &requestCodec{req: got}
			got.Messages, codec.wire = c.convert(msgs)
			want := &providerv1.Stream_Request{Handle: got.Handle, ToolChoice: got.ToolChoice, MaxOutput: got.MaxOutput, Tools: got.Tools}
			for _, m := range msgs {
				want.Messages = append(want.Messages, messageToProto(m))
			}
			if !proto.Equal(got, want) {
				t.Fatalf("seed %d step %d: converted\n%v\nwant\n%v", seed, step, got, want)
			}
			raw, err := codec.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var sent providerv1.Stream_Request
			if err := proto.Unmarshal(raw.Materialize(), &sent); err != nil || !proto.Equal(&sent, want) {
				t.Fatalf("seed %d step %d: sent\n%v (%v)\nwant\n%v", seed, step, &sent, err, want)
			}
		}
	}
}

// BenchmarkStreamRequest measures the request of turn 100 of a session
// (200 messages) converted and encoded: every message converted and the
// request marshalled, and by the cache holding turn 99's and the codec.
func BenchmarkStreamRequest(b *testing.B) {
	msgs := SessionMessages(100)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			preq := &providerv1.Stream_Request{}
			for _, m := range msgs {
				preq.Messages = append(preq.Messages, messageToProto(m))
			}
			if _, err := proto.Marshal(preq); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		var c messageCache
		b.ReportAllocs()
		for b.Loop() {
			k := min(len(c.msgs), len(msgs)-2) // turn 100's two messages are new
			c.msgs, c.pms, c.wire = c.msgs[:k], c.pms[:k], c.wire[:k]
			req := &providerv1.Stream_Request{}
			codec := &requestCodec{req: req}
			req.Messages, codec.wire = c.convert(msgs)
			if _, err := codec.Marshal(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// SessionMessages is the conversation of turn TURNS of a read session, as
// the benchmarks of a request at turn 100 use it: the system prompt and
// the task, then per earlier turn a read_file call and its result.
func SessionMessages(turns int) []Message {
	msgs := []Message{{Role: RoleSystem, Content: "You are a helpful agent."}, {Role: RoleUser, Content: "Summarize the notes", Pinned: true}}
	for k := range turns - 1 {
		id := fmt.Sprintf("call_%d", k)
		msgs = append(msgs, Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"notes-%d.md"}`, k)}}},
			Message{Role: RoleTool, ToolCallID: id, Content: "     1\t# Notes\n     2\t\n     3\t- TODO: the parser\n     4\t- TODO: the docs\n"})
	}
	return msgs
}

// TestMessageCacheConcurrent: streams of one client convert and marshal
// at once, sharing the converted messages (the race detector checks).
func TestMessageCacheConcurrent(t *testing.T) {
	t.Parallel()
	var c messageCache
	base := []Message{{Role: RoleSystem, Content: "s"}, {Role: RoleUser, Content: "u"}}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			msgs := slices.Clone(base)
			for k := range 50 {
				msgs = append(msgs, Message{Role: RoleAssistant, Content: fmt.Sprint(g, k)})
				req := &providerv1.Stream_Request{}
				codec := &requestCodec{req: req}
				req.Messages, codec.wire = c.convert(msgs)
				raw, err := codec.Marshal(req)
				var back providerv1.Stream_Request
				if err == nil {
					err = proto.Unmarshal(raw.Materialize(), &back)
				}
				if err != nil || len(back.Messages) != len(msgs) || back.Messages[len(msgs)-1].Content != msgs[len(msgs)-1].Content {
					t.Errorf("goroutine %d turn %d: %v, %d messages", g, k, err, len(back.Messages))
					return
				}
			}
		})
	}
	wg.Wait()
}

// A decoded message's tool calls and reasoning blocks have no spare room:
// kept conversations share them with later requests, and a provider that
// appends to one must not write where another request reads.
func TestMessageFromProtoLeavesNoSpareCapacity(t *testing.T) {
	pm := &providerv1.Message{Role: string(RoleAssistant)}
	for i := range 3 {
		pm.ToolCalls = append(pm.ToolCalls, &providerv1.ToolCall{Id: fmt.Sprint(i), Name: "t"})
		pm.ReasoningBlocks = append(pm.ReasoningBlocks, &providerv1.ReasoningBlock{Text: fmt.Sprint(i)})
	}
	m := messageFromProto(pm)
	if len(m.ToolCalls) != 3 || cap(m.ToolCalls) != 3 || len(m.ReasoningBlocks) != 3 || cap(m.ReasoningBlocks) != 3 {
		t.Errorf("tool calls len %d cap %d, reasoning blocks len %d cap %d: want 3 and 3",
			len(m.ToolCalls), cap(m.ToolCalls), len(m.ReasoningBlocks), cap(m.ReasoningBlocks))
	}
}
