package sdk

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harness-agent/harness/sdk/proto/providerv1"
)

// ProviderGRPCPlugin binds a [Provider] to go-plugin; hosts get a
// *ProviderClient from it.
type ProviderGRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Provider
}

// GRPCServer implements plugin.GRPCPlugin.
func (p *ProviderGRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	providerv1.RegisterProviderServer(s, newProviderServer(p.Impl))
	return nil
}

// GRPCClient implements plugin.GRPCPlugin.
func (p *ProviderGRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &ProviderClient{client: providerv1.NewProviderClient(c)}, nil
}

// providerServer owns adapter generations. Each process starts at a random
// generation, so a handle from a crashed predecessor is never accepted, and
// Configure starts a new one.
type providerServer struct {
	providerv1.UnimplementedProviderServer
	impl Provider

	mu         sync.Mutex
	generation uint64
	handles    map[string]preparedCall
	kept       keptConversations // for Stream.Request.reuse_prefix
}

type preparedCall struct {
	generation      uint64
	model           ModelInfo
	thinking        bool
	thinkingBudget  int64
	replayReasoning bool
}

func newProviderServer(impl Provider) *providerServer {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &providerServer{impl: impl, generation: binary.LittleEndian.Uint64(b[:]) >> 1, handles: map[string]preparedCall{}}
}

func (s *providerServer) Configure(ctx context.Context, req *providerv1.Configure_Request) (*providerv1.Configure_Response, error) {
	s.mu.Lock()
	s.generation++
	s.handles = map[string]preparedCall{}
	s.kept.reset()
	s.mu.Unlock()
	if err := s.impl.Configure(ctx, req.ConfigJson); err != nil {
		return &providerv1.Configure_Response{Error: errorToProto(AsError(err))}, nil
	}
	return &providerv1.Configure_Response{}, nil
}

func (s *providerServer) Describe(ctx context.Context, _ *providerv1.Describe_Request) (*providerv1.Describe_Response, error) {
	d, ok := s.impl.(ProviderDescriber)
	if !ok {
		return &providerv1.Describe_Response{}, nil
	}
	schema, err := d.SettingsSchema(ctx)
	if err != nil {
		return nil, err
	}
	return &providerv1.Describe_Response{SettingsSchemaJson: schema}, nil
}

func (s *providerServer) Models(ctx context.Context, _ *providerv1.Models_Request) (*providerv1.Models_Response, error) {
	models, err := s.impl.Models(ctx)
	if err != nil {
		return nil, err
	}
	resp := &providerv1.Models_Response{}
	for _, m := range models {
		resp.Models = append(resp.Models, modelToProto(m))
	}
	return resp, nil
}

func (s *providerServer) PrepareCall(_ context.Context, req *providerv1.PrepareCall_Request) (*providerv1.PrepareCall_Response, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handles[id] = preparedCall{generation: s.generation, model: modelFromProto(req.Model), thinking: req.Thinking, thinkingBudget: req.ThinkingBudget, replayReasoning: req.ReplayReasoning}
	return &providerv1.PrepareCall_Response{Handle: &providerv1.Handle{Id: id, Generation: s.generation}, ReusePrefix: true}, nil
}

func (s *providerServer) Stream(req *providerv1.Stream_Request, stream grpc.ServerStreamingServer[providerv1.StreamChunk]) error {
	s.mu.Lock()
	prepared, ok := s.handles[req.GetHandle().GetId()]
	current := s.generation
	s.mu.Unlock()
	if !ok || prepared.generation != current || req.GetHandle().GetGeneration() != current {
		return stream.Send(chunkToProto(StreamChunk{Type: ChunkError, Err: Errorf(KindStaleHandle,
			"handle %q belongs to adapter generation %d, current is %d: prepare the call again",
			req.GetHandle().GetId(), req.GetHandle().GetGeneration(), current)}))
	}
	sr := StreamRequest{
		Model:           prepared.model,
		Thinking:        prepared.thinking,
		ThinkingBudget:  prepared.thinkingBudget,
		ReplayReasoning: prepared.replayReasoning,
		ToolChoice:      req.ToolChoice,
		MaxOutput:       req.MaxOutput,
		Temperature:     req.Temperature,
	}
	if sr.Messages, ok = s.conversation(req); !ok {
		return stream.Send(chunkToProto(StreamChunk{Type: ChunkError, Err: Errorf(kindPrefixUnknown,
			"no conversation %d of at least %d messages is kept for handle %q: send every message",
			req.PrefixOf, req.ReusePrefix, req.GetHandle().GetId())}))
	}
	for _, t := range req.Tools {
		sr.Tools = append(sr.Tools, ToolDefinition{Name: t.Name, Description: t.Description, Parameters: t.ParametersJson})
	}
	send := func(c StreamChunk) error { return stream.Send(chunkToProto(c)) }
	var err error
	if k, ok := s.impl.(DeltaKeeper); ok && k.KeepDeltas() {
		err = s.impl.Stream(stream.Context(), sr, send)
	} else {
		// The provider's chunks go out from a sender goroutine, which
		// merges the same-block deltas already queued behind the one it
		// sends (see coalescer): a provider reading faster than the host
		// consumes costs one gRPC message per batch, not per upstream event.
		out := newCoalescer(stream.Context(), send)
		err = s.impl.Stream(stream.Context(), sr, out.emit)
		if sendErr := out.close(); sendErr != nil {
			return sendErr
		}
	}
	if err != nil {
		return stream.Send(chunkToProto(StreamChunk{Type: ChunkError, Err: AsError(err)}))
	}
	return nil
}

// conversation is the messages of req: the reused prefix of the
// conversation kept for its handle, then its own; false when that prefix
// is not kept. The provider gets a copy: one that modifies its request
// does not change what the next request reuses.
func (s *providerServer) conversation(req *providerv1.Stream_Request) ([]Message, bool) {
	var tail []Message
	if len(req.Messages) > 0 {
		tail = make([]Message, 0, len(req.Messages))
	}
	for _, m := range req.Messages {
		tail = append(tail, messageFromProto(m))
	}
	if req.ReusePrefix == 0 && req.RequestId == 0 {
		return tail, true
	}
	n := int(req.ReusePrefix)
	if n < 0 {
		return nil, false // beyond int on a 32-bit build: no conversation is that long
	}
	msgs, ok := s.kept.extend(req.GetHandle().GetId(), req.PrefixOf, n, req.RequestId, tail)
	if !ok || len(msgs) == 0 {
		return nil, ok
	}
	return slices.Clone(msgs), true
}

// Handle names a prepared call: the model metadata bound to one adapter generation.
type Handle struct {
	ID         string
	Generation uint64
}

// PrepareRequest binds a model for later Stream calls.
type PrepareRequest struct {
	Model           ModelInfo
	Thinking        bool
	ThinkingBudget  int64
	ReplayReasoning bool
}

// ProviderClient is the host side of a provider plugin connection.
type ProviderClient struct {
	client   providerv1.ProviderClient
	messages messageCache      // the last request's messages, converted
	sent     sentConversations // per handle, what the plugin keeps for reuse_prefix
}

// Configure sends the provider block; it starts a new adapter generation.
func (c *ProviderClient) Configure(ctx context.Context, config []byte) error {
	resp, err := c.client.Configure(ctx, &providerv1.Configure_Request{ConfigJson: config})
	if err != nil {
		return err
	}
	if e := errorFromProto(resp.Error); e != nil {
		return e
	}
	return nil
}

// SettingsSchema returns the JSON Schema of the provider's settings; nil
// when the plugin reports none (it predates Describe or does not implement
// [ProviderDescriber]), in which case its settings go unchecked.
func (c *ProviderClient) SettingsSchema(ctx context.Context) (json.RawMessage, error) {
	resp, err := c.client.Describe(ctx, &providerv1.Describe_Request{})
	if status.Code(err) == codes.Unimplemented {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(resp.SettingsSchemaJson) == 0 {
		return nil, nil
	}
	return resp.SettingsSchemaJson, nil
}

// Models lists the provider's model metadata.
func (c *ProviderClient) Models(ctx context.Context) ([]ModelInfo, error) {
	resp, err := c.client.Models(ctx, &providerv1.Models_Request{})
	if err != nil {
		return nil, err
	}
	out := make([]ModelInfo, len(resp.Models))
	for i, m := range resp.Models {
		out[i] = modelFromProto(m)
	}
	return out, nil
}

// PrepareCall binds model metadata to the provider's current generation.
func (c *ProviderClient) PrepareCall(ctx context.Context, req PrepareRequest) (Handle, error) {
	resp, err := c.client.PrepareCall(ctx, &providerv1.PrepareCall_Request{Model: modelToProto(req.Model), Thinking: req.Thinking, ThinkingBudget: req.ThinkingBudget, ReplayReasoning: req.ReplayReasoning})
	if err != nil {
		return Handle{}, err
	}
	if resp.ReusePrefix {
		c.sent.announce(resp.Handle.GetId())
	}
	return Handle{ID: resp.Handle.GetId(), Generation: resp.Handle.GetGeneration()}, nil
}

// Stream runs a prepared request, calling emit for each chunk. Transport
// failures are returned as the error; provider failures arrive as
// ChunkError chunks. On a handle whose plugin keeps conversations, only
// the messages after the prefix shared with the handle's previous request
// are sent; a plugin that no longer holds it refuses before streaming
// anything, and the request is sent again whole.
func (c *ProviderClient) Stream(ctx context.Context, h Handle, req StreamRequest, emit func(StreamChunk) error) error {
	preq := &providerv1.Stream_Request{
		Handle:      &providerv1.Handle{Id: h.ID, Generation: h.Generation},
		ToolChoice:  req.ToolChoice,
		MaxOutput:   req.MaxOutput,
		Temperature: req.Temperature,
	}
	pms, wire := c.messages.convert(req.Messages)
	for _, t := range req.Tools {
		preq.Tools = append(preq.Tools, &providerv1.ToolDefinition{Name: t.Name, Description: t.Description, ParametersJson: t.Parameters})
	}
	err := c.stream(ctx, preq, pms, wire, c.sent.plan(h.ID, pms, false), emit)
	if errors.Is(err, errPrefixUnknown) {
		err = c.stream(ctx, preq, pms, wire, c.sent.plan(h.ID, pms, true), emit)
	}
	return err
}

// errPrefixUnknown is a refusal of a request's reused prefix.
var errPrefixUnknown = errors.New("the plugin does not hold the reused prefix")

// stream sends preq with the messages (pms, encoded as wire) p leaves
// after the reused prefix. A refusal of the prefix is errPrefixUnknown.
func (c *ProviderClient) stream(ctx context.Context, preq *providerv1.Stream_Request, pms []*providerv1.Message, wire [][]byte, p prefixPlan, emit func(StreamChunk) error) error {
	preq.RequestId, preq.PrefixOf, preq.ReusePrefix = p.id, p.of, uint32(p.reuse)
	preq.Messages = pms[p.reuse:]
	codec := &requestCodec{req: preq, wire: wire[p.reuse:]}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.client.Stream(ctx, preq, codec.callOption())
	if err != nil {
		return err
	}
	for first := true; ; first = false {
		pc, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		chunk, err := chunkFromProto(pc)
		if err != nil {
			return err
		}
		if first && p.reuse > 0 && chunk.Type == ChunkError && chunk.Err.Kind == kindPrefixUnknown {
			return errPrefixUnknown
		}
		if err := emit(chunk); err != nil {
			return err
		}
	}
}

func modelToProto(m ModelInfo) *providerv1.ModelInfo {
	pm := &providerv1.ModelInfo{Id: m.ID, ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput,
		SupportsTools: m.SupportsTools, SupportsReasoning: m.SupportsReasoning, SupportsCaching: m.SupportsCaching}
	if m.Pricing != nil {
		pm.Pricing = &providerv1.Pricing{InputCacheHit: m.Pricing.InputCacheHit, InputCacheMiss: m.Pricing.InputCacheMiss, Output: m.Pricing.Output, InputCacheWrite: m.Pricing.InputCacheWrite}
	}
	return pm
}

func modelFromProto(pm *providerv1.ModelInfo) ModelInfo {
	m := ModelInfo{ID: pm.GetId(), ContextWindow: pm.GetContextWindow(), MaxOutput: pm.GetMaxOutput(),
		SupportsTools: pm.GetSupportsTools(), SupportsReasoning: pm.GetSupportsReasoning(), SupportsCaching: pm.GetSupportsCaching()}
	if p := pm.GetPricing(); p != nil {
		m.Pricing = &Pricing{InputCacheHit: p.InputCacheHit, InputCacheMiss: p.InputCacheMiss, Output: p.Output, InputCacheWrite: p.InputCacheWrite}
	}
	return m
}

func messageToProto(m Message) *providerv1.Message {
	pm := &providerv1.Message{Role: string(m.Role), Content: m.Content, Reasoning: m.Reasoning, ToolCallId: m.ToolCallID, Pinned: m.Pinned, IsError: m.IsError}
	for _, rb := range m.ReasoningBlocks {
		pm.ReasoningBlocks = append(pm.ReasoningBlocks, &providerv1.ReasoningBlock{Text: rb.Text, Signature: rb.Signature, Redacted: rb.Redacted})
	}
	for _, tc := range m.ToolCalls {
		pm.ToolCalls = append(pm.ToolCalls, &providerv1.ToolCall{Id: tc.ID, Name: tc.Name, ArgumentsJson: tc.Arguments})
	}
	return pm
}

func messageFromProto(pm *providerv1.Message) Message {
	m := Message{Role: Role(pm.Role), Content: pm.Content, Reasoning: pm.Reasoning, ToolCallID: pm.ToolCallId, Pinned: pm.Pinned, IsError: pm.IsError}
	// Exactly as long as they are: a kept conversation shares these slices
	// with later requests (reuse_prefix), so a provider that appends to one
	// must get a new array, never write into spare room another reads.
	if n := len(pm.ReasoningBlocks); n > 0 {
		m.ReasoningBlocks = make([]ReasoningBlock, n)
		for i, rb := range pm.ReasoningBlocks {
			m.ReasoningBlocks[i] = ReasoningBlock{Text: rb.Text, Signature: rb.Signature, Redacted: rb.Redacted}
		}
	}
	if n := len(pm.ToolCalls); n > 0 {
		m.ToolCalls = make([]ToolCall, n)
		for i, tc := range pm.ToolCalls {
			m.ToolCalls[i] = ToolCall{ID: tc.Id, Name: tc.Name, Arguments: tc.ArgumentsJson}
		}
	}
	return m
}

func usageToProto(u *Usage) *providerv1.Usage {
	if u == nil {
		return nil
	}
	return &providerv1.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		CacheHitTokens: u.CacheHitTokens, CacheMissTokens: u.CacheMissTokens, ReasoningTokens: u.ReasoningTokens, CacheWriteTokens: u.CacheWriteTokens}
}

func usageFromProto(u *providerv1.Usage) *Usage {
	if u == nil {
		return nil
	}
	return &Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		CacheHitTokens: u.CacheHitTokens, CacheMissTokens: u.CacheMissTokens, ReasoningTokens: u.ReasoningTokens, CacheWriteTokens: u.CacheWriteTokens}
}

func chunkToProto(c StreamChunk) *providerv1.StreamChunk {
	switch c.Type {
	case ChunkBlockStart:
		return &providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_BlockStart_{BlockStart: &providerv1.StreamChunk_BlockStart{
			Index: int32(c.Index), Kind: providerv1.BlockKind(c.Kind), ToolCallId: c.ToolCallID, ToolName: c.ToolName, Redacted: c.Redacted}}}
	case ChunkBlockDelta:
		return &providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_BlockDelta_{BlockDelta: &providerv1.StreamChunk_BlockDelta{Index: int32(c.Index), Text: c.Text, Signature: c.Signature}}}
	case ChunkBlockEnd:
		return &providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_BlockEnd_{BlockEnd: &providerv1.StreamChunk_BlockEnd{Index: int32(c.Index)}}}
	case ChunkUsage:
		return &providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_Usage{Usage: usageToProto(c.Usage)}}
	case ChunkFinish:
		return &providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_Finish_{Finish: &providerv1.StreamChunk_Finish{Reason: c.Reason, Usage: usageToProto(c.Usage)}}}
	default:
		return &providerv1.StreamChunk{Chunk: &providerv1.StreamChunk_Error{Error: errorToProto(c.Err)}}
	}
}

func chunkFromProto(pc *providerv1.StreamChunk) (StreamChunk, error) {
	switch v := pc.Chunk.(type) {
	case *providerv1.StreamChunk_BlockStart_:
		return StreamChunk{Type: ChunkBlockStart, Index: int(v.BlockStart.Index), Kind: BlockKind(v.BlockStart.Kind), ToolCallID: v.BlockStart.ToolCallId, ToolName: v.BlockStart.ToolName, Redacted: v.BlockStart.Redacted}, nil
	case *providerv1.StreamChunk_BlockDelta_:
		return StreamChunk{Type: ChunkBlockDelta, Index: int(v.BlockDelta.Index), Text: v.BlockDelta.Text, Signature: v.BlockDelta.Signature}, nil
	case *providerv1.StreamChunk_BlockEnd_:
		return StreamChunk{Type: ChunkBlockEnd, Index: int(v.BlockEnd.Index)}, nil
	case *providerv1.StreamChunk_Usage:
		return StreamChunk{Type: ChunkUsage, Usage: usageFromProto(v.Usage)}, nil
	case *providerv1.StreamChunk_Finish_:
		return StreamChunk{Type: ChunkFinish, Reason: v.Finish.Reason, Usage: usageFromProto(v.Finish.Usage)}, nil
	case *providerv1.StreamChunk_Error:
		return StreamChunk{Type: ChunkError, Err: errorFromProto(v.Error)}, nil
	}
	return StreamChunk{}, fmt.Errorf("provider sent an empty stream chunk")
}
