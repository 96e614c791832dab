package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/proto/providerv1"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// recorder is a provider that keeps the messages of every request it
// streams.
type recorder struct {
	mu   sync.Mutex
	got  [][]sdk.Message
	fail bool // modify the messages it is handed, as a careless provider may
}

func (p *recorder) Configure(context.Context, json.RawMessage) error { return nil }
func (p *recorder) Models(context.Context) ([]sdk.ModelInfo, error) {
	return []sdk.ModelInfo{{ID: "m"}}, nil
}

func (p *recorder) Stream(_ context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	p.mu.Lock()
	p.got = append(p.got, slices.Clone(req.Messages))
	p.mu.Unlock()
	if p.fail {
		for i := range req.Messages {
			req.Messages[i].Content = "overwritten"
		}
	}
	return emit(sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: "stop"})
}

func (p *recorder) last() []sdk.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.got) == 0 {
		return nil
	}
	return p.got[len(p.got)-1]
}

// sent is what the host put on the wire: the Stream requests, as the
// server received them.
type sent struct {
	mu   sync.Mutex
	reqs []*providerv1.Stream_Request
}

func (s *sent) all() []*providerv1.Stream_Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// connect serves impl over an in-memory gRPC connection, recording the
// Stream requests the server receives; with announce false the plugin's
// PrepareCall answers as a plugin that predates reuse_prefix.
func connect(t testing.TB, impl sdk.Provider, announce bool) (*sdk.ProviderClient, *sent, *grpc.ClientConn) {
	t.Helper()
	rec := &sent{}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			resp, err := h(ctx, req)
			if r, ok := resp.(*providerv1.PrepareCall_Response); ok && !announce {
				r.ReusePrefix = false
			}
			return resp, err
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return h(srv, &recordingStream{ServerStream: ss, rec: rec})
		}))
	if err := (&sdk.ProviderGRPCPlugin{Impl: impl}).GRPCServer(nil, srv); err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///bufconn", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(); srv.Stop() })
	raw, err := (&sdk.ProviderGRPCPlugin{}).GRPCClient(context.Background(), nil, conn)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*sdk.ProviderClient), rec, conn
}

type recordingStream struct {
	grpc.ServerStream
	rec *sent
}

func (s *recordingStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if r, ok := m.(*providerv1.Stream_Request); ok && err == nil {
		s.rec.mu.Lock()
		s.rec.reqs = append(s.rec.reqs, r)
		s.rec.mu.Unlock()
	}
	return err
}

// encodable says whether a full request of msgs can be encoded: proto3
// strings must be valid UTF-8.
func encodable(msgs []sdk.Message) bool {
	for _, m := range msgs {
		texts := []string{string(m.Role), m.Content, m.Reasoning, m.ToolCallID}
		for _, tc := range m.ToolCalls {
			texts = append(texts, tc.ID, tc.Name, tc.Arguments)
		}
		for _, rb := range m.ReasoningBlocks {
			texts = append(texts, rb.Text, rb.Signature)
		}
		if !slices.ContainsFunc(texts, func(s string) bool { return !utf8.ValidString(s) }) {
			continue
		}
		return false
	}
	return true
}

func sameMessages(a, b []sdk.Message) bool {
	return slices.EqualFunc(a, b, sdk.SameMessage)
}

// session drives random conversations over handles of client: the
// provider must receive every request's conversation exactly as a full
// request carries it, whatever the host reused, and a request that cannot
// be encoded must fail as a full one does.
type session struct {
	t       *testing.T
	r       *rand.Rand
	client  *sdk.ProviderClient
	p       *recorder
	handles []sdk.Handle
	convs   [][]sdk.Message // per handle
}

func (s *session) prepare() {
	h, err := s.client.PrepareCall(context.Background(), sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "m"}})
	if err != nil {
		s.t.Fatal(err)
	}
	s.handles = append(s.handles, h)
	s.convs = append(s.convs, []sdk.Message{{Role: sdk.RoleSystem, Content: "sys", Pinned: true}})
}

func (s *session) step(label string) {
	r := s.r
	switch op := r.IntN(20); {
	case op == 0:
		if err := s.client.Configure(context.Background(), []byte(`{}`)); err != nil {
			s.t.Fatal(err)
		}
		s.handles, s.convs = nil, nil
		s.prepare()
	case op == 1:
		for range r.IntN(20) { // past the bound on kept conversations
			s.prepare()
		}
	case op == 2:
		s.prepare()
	}
	k := r.IntN(len(s.handles))
	msgs := s.convs[k]
	switch op := r.IntN(10); {
	case op < 6:
		for range 1 + r.IntN(2) {
			msgs = append(msgs, sdktest.RandomMessage(r))
		}
	case op < 7 && len(msgs) > 0:
		m := &msgs[r.IntN(len(msgs))]
		if len(m.ToolCalls) > 0 {
			m.ToolCalls[0].Arguments += "x" // the caller's slice, mutated in place
		} else {
			m.Content += "x"
		}
	case op < 8 && len(msgs) > 2:
		keep := r.IntN(len(msgs) - 1) // compacted: the head, a summary, the tail
		msgs = append([]sdk.Message{msgs[0], sdktest.RandomMessage(r)}, msgs[len(msgs)-keep:]...)
	case op < 9:
		msgs = msgs[:r.IntN(len(msgs)+1)]
	default:
		msgs = slices.Clone(msgs)
		if len(msgs) > 0 {
			msgs[r.IntN(len(msgs))] = sdktest.RandomMessage(r)
		}
	}
	s.convs[k] = msgs
	before := len(s.p.got)
	err := s.client.Stream(context.Background(), s.handles[k], sdk.StreamRequest{Messages: msgs},
		func(c sdk.StreamChunk) error {
			if c.Type == sdk.ChunkError {
				return fmt.Errorf("%s: error chunk %v", label, c.Err)
			}
			return nil
		})
	if !encodable(msgs) {
		if err == nil || len(s.p.got) != before {
			s.t.Fatalf("%s: a request that cannot be encoded reached the provider (err %v)", label, err)
		}
		return
	}
	if err != nil {
		s.t.Fatalf("%s: %v", label, err)
	}
	if got := s.p.last(); len(s.p.got) != before+1 || !sameMessages(got, msgs) {
		s.t.Fatalf("%s: the provider got\n%+v\nwant\n%+v", label, got, msgs)
	}
}

// TestReusePrefixConversations: over random edits, handles, eviction and
// reconfiguration, what the provider receives equals the full request,
// and the host does reuse prefixes.
func TestReusePrefixConversations(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		p := &recorder{}
		client, wire, _ := connect(t, p, true)
		s := &session{t: t, r: rand.New(rand.NewPCG(seed, seed+1)), client: client, p: p}
		s.prepare()
		for step := range 150 {
			s.step(fmt.Sprintf("seed %d step %d", seed, step))
		}
		if !slices.ContainsFunc(wire.all(), func(r *providerv1.Stream_Request) bool { return r.ReusePrefix > 0 }) {
			t.Errorf("seed %d: no request reused a prefix", seed)
		}
	}
}

// TestReusePrefixCarelessProvider: a provider that overwrites the messages
// it is handed does not change what the next request's provider receives.
func TestReusePrefixCarelessProvider(t *testing.T) {
	t.Parallel()
	p := &recorder{fail: true}
	client, wire, _ := connect(t, p, true)
	s := &session{t: t, r: rand.New(rand.NewPCG(1, 2)), client: client, p: p}
	s.prepare()
	for step := range 60 {
		s.step(fmt.Sprintf("step %d", step))
	}
	if !slices.ContainsFunc(wire.all(), func(r *providerv1.Stream_Request) bool { return r.ReusePrefix > 0 }) {
		t.Error("no request reused a prefix")
	}
}

// TestReusePrefixNotAnnounced: a plugin that does not announce reuse
// (one predating it, or in another language) gets every message and no
// request_id.
func TestReusePrefixNotAnnounced(t *testing.T) {
	t.Parallel()
	p := &recorder{}
	client, wire, _ := connect(t, p, false)
	s := &session{t: t, r: rand.New(rand.NewPCG(3, 4)), client: client, p: p}
	s.prepare()
	for step := range 60 {
		s.step(fmt.Sprintf("step %d", step))
	}
	for _, r := range wire.all() {
		if r.RequestId != 0 || r.ReusePrefix != 0 || r.PrefixOf != 0 {
			t.Fatalf("a plugin that did not announce reuse got %v", r)
		}
	}
}

// TestReusePrefixUnknown: a request naming a conversation the plugin does
// not keep (wrong id, longer than kept, another handle's) is refused with
// nothing else streamed; the host's own client then resends it whole.
func TestReusePrefixUnknown(t *testing.T) {
	t.Parallel()
	p := &recorder{}
	client, wire, conn := connect(t, p, true)
	ctx := context.Background()
	var hs []*providerv1.Handle
	for range 2 {
		h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "m"}})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, &providerv1.Handle{Id: h.ID, Generation: h.Generation})
		msgs := []sdk.Message{{Role: sdk.RoleSystem, Content: "s"}, {Role: sdk.RoleUser, Content: h.ID}}
		if err := client.Stream(ctx, h, sdk.StreamRequest{Messages: msgs}, func(sdk.StreamChunk) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	reqs := wire.all()
	id := reqs[0].RequestId // what the plugin keeps for hs[0]
	if id == 0 || reqs[1].RequestId == 0 {
		t.Fatalf("the host did not name its requests: %v", reqs)
	}
	raw := providerv1.NewProviderClient(conn)
	tail := []*providerv1.Message{{Role: "user", Content: "next"}}
	stream := func(req *providerv1.Stream_Request) []*providerv1.StreamChunk {
		t.Helper()
		st, err := raw.Stream(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var got []*providerv1.StreamChunk
		for {
			c, err := st.Recv()
			if err != nil {
				return got
			}
			got = append(got, c)
		}
	}
	for _, tc := range []struct {
		name string
		req  *providerv1.Stream_Request
	}{
		{"another id", &providerv1.Stream_Request{Handle: hs[0], ReusePrefix: 1, PrefixOf: id + 1, Messages: tail}},
		{"longer than kept", &providerv1.Stream_Request{Handle: hs[0], ReusePrefix: 3, PrefixOf: id, Messages: tail}},
		{"another handle's", &providerv1.Stream_Request{Handle: hs[1], ReusePrefix: 1, PrefixOf: id, Messages: tail}},
		// Beyond int on a 32-bit build (GOARCH=386 go test runs it there).
		{"longer than any", &providerv1.Stream_Request{Handle: hs[0], ReusePrefix: math.MaxUint32, PrefixOf: id, Messages: tail}},
	} {
		before := len(p.got)
		got := stream(tc.req)
		if len(got) != 1 || got[0].GetError().GetKind() != "prefix_unknown" || len(p.got) != before {
			t.Errorf("%s: got %v, the provider called %d times; want one prefix_unknown error", tc.name, got, len(p.got)-before)
		}
	}
	// The kept conversation itself, extended.
	got := stream(&providerv1.Stream_Request{Handle: hs[0], ReusePrefix: 2, PrefixOf: id, Messages: tail})
	want := []sdk.Message{{Role: sdk.RoleSystem, Content: "s"}, {Role: sdk.RoleUser, Content: hs[0].Id}, {Role: sdk.RoleUser, Content: "next"}}
	if len(got) != 1 || got[0].GetFinish() == nil || !sameMessages(p.last(), want) {
		t.Errorf("got %v and the provider %+v, want %+v", got, p.last(), want)
	}
}

// TestReusePrefixConcurrent: streams on one handle at once, each growing
// its own conversation from a shared head, each reach the provider as
// sent (the race detector checks the kept conversations' sharing).
func TestReusePrefixConcurrent(t *testing.T) {
	t.Parallel()
	p := &echo{}
	client, _, _ := connect(t, p, true)
	ctx := context.Background()
	h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	head := []sdk.Message{{Role: sdk.RoleSystem, Content: "s"}, {Role: sdk.RoleUser, Content: "u"}}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			msgs := slices.Clone(head)
			for k := range 40 {
				msgs = append(msgs, sdk.Message{Role: sdk.RoleAssistant, Content: fmt.Sprint(g, " ", k)})
				var got string
				err := client.Stream(ctx, h, sdk.StreamRequest{Messages: msgs}, func(c sdk.StreamChunk) error {
					got += c.Text
					return nil
				})
				if want := digest(msgs); err != nil || got != want {
					t.Errorf("goroutine %d turn %d: the provider got %q (%v), want %q", g, k, got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// echo streams back the contents of its request's messages.
type echo struct{ nop }

func (echo) Stream(_ context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	return emit(sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Text: digest(req.Messages)})
}

func digest(msgs []sdk.Message) string {
	var b []byte
	for _, m := range msgs {
		b = fmt.Appendf(b, "%s:%q;", m.Role, m.Content)
	}
	return string(b)
}

// BenchmarkStreamTurn measures turn 100 of a session (200 messages, the
// last two new, after turn 99's 198) through a Stream over in-process gRPC to a provider that
// streams one chunk: the host's conversion and encoding, the transport
// and the plugin's decoding; whole (a plugin that does not announce
// reuse) and with the prefix reused.
func BenchmarkStreamTurn(b *testing.B) {
	msgs := sdk.SessionMessages(100)
	for _, announce := range []bool{false, true} {
		name := "whole"
		if announce {
			name = "reused"
		}
		b.Run(name, func(b *testing.B) {
			client, _, _ := connect(b, &nop{}, announce)
			ctx := context.Background()
			h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "m"}})
			if err != nil {
				b.Fatal(err)
			}
			turn := slices.Clone(msgs)
			stream := func(msgs []sdk.Message) {
				if err := client.Stream(ctx, h, sdk.StreamRequest{Messages: msgs}, func(sdk.StreamChunk) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				stream(turn[:len(turn)-2])                           // turn 99
				turn[len(turn)-1].Content = fmt.Sprint("result ", i) // turn 100's two messages are new
				turn[len(turn)-2].ToolCalls = []sdk.ToolCall{{ID: fmt.Sprint("call_", i), Name: "read_file", Arguments: `{"path":"notes-99.md"}`}}
				b.StartTimer()
				stream(turn)
			}
		})
	}
}

// nop streams one finish chunk.
type nop struct{}

func (nop) Configure(context.Context, json.RawMessage) error { return nil }
func (nop) Models(context.Context) ([]sdk.ModelInfo, error)  { return nil, nil }
func (nop) Stream(_ context.Context, _ sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	return emit(sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: "stop"})
}
