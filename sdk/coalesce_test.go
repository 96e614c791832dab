package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// manyDeltas streams two text blocks and a tool call of many small deltas
// each, and closes emitted once every chunk is emitted.
type manyDeltas struct{ emitted chan struct{} }

func (manyDeltas) Configure(context.Context, json.RawMessage) error { return nil }
func (manyDeltas) Models(context.Context) ([]sdk.ModelInfo, error) {
	return []sdk.ModelInfo{{ID: "m"}}, nil
}

func (p manyDeltas) Stream(_ context.Context, _ sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	defer close(p.emitted)
	for _, ch := range manyDeltaChunks() {
		if err := emit(ch); err != nil {
			return err
		}
	}
	return nil
}

func manyDeltaChunks() []sdk.StreamChunk {
	out := []sdk.StreamChunk{{Type: sdk.ChunkBlockStart, Index: 0, Kind: sdk.BlockReasoning}}
	for i := range 300 {
		out = append(out, sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: 0, Text: fmt.Sprintf("r%d ", i)})
	}
	out = append(out, sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: 0, Signature: "sig"},
		sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: 0},
		sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: 1, Kind: sdk.BlockText})
	for i := range 300 {
		out = append(out, sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: 1, Text: fmt.Sprintf("t%d ", i)})
	}
	out = append(out, sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: 2, Kind: sdk.BlockToolCall, ToolCallID: "c1", ToolName: "read"})
	for _, frag := range []string{`{"pa`, `th"`, `:"a`, `.go"}`} {
		out = append(out, sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: 2, Text: frag})
	}
	return append(out, sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: 1}, sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: 2},
		sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: "tool_calls", Usage: &sdk.Usage{PromptTokens: 7}})
}

// assembled is what a host builds from a stream: each block's text and
// signature, and every other chunk in order.
func assembled(chunks []sdk.StreamChunk) (texts map[int]string, others []sdk.StreamChunk) {
	texts = map[int]string{}
	for _, ch := range chunks {
		if ch.Type == sdk.ChunkBlockDelta {
			texts[ch.Index] += ch.Text
			if ch.Signature != "" {
				texts[-1-ch.Index] += ch.Signature
			}
			continue
		}
		others = append(others, ch)
	}
	return texts, others
}

// TestProviderStreamCoalesced: over gRPC, a consumer that takes its time
// and a fast one both assemble exactly what the provider emitted, in no
// more chunks than it emitted.
func TestProviderStreamCoalesced(t *testing.T) {
	t.Parallel()
	wantTexts, wantOthers := assembled(manyDeltaChunks())
	if !strings.HasPrefix(wantTexts[0], "r0 r1 ") || wantTexts[-1] != "sig" || wantTexts[2] != `{"path":"a.go"}` {
		t.Fatalf("the fixture is not what the test expects: %v", wantTexts)
	}
	for _, slow := range []bool{false, true} {
		t.Run(fmt.Sprintf("slow=%v", slow), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := manyDeltas{emitted: make(chan struct{})}
			client := sdktest.ConnectProvider(t, p)
			h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "m"}})
			if err != nil {
				t.Fatal(err)
			}
			var got []sdk.StreamChunk
			err = client.Stream(ctx, h, sdk.StreamRequest{}, func(c sdk.StreamChunk) error {
				if slow && len(got) == 1 {
					<-p.emitted // the provider is done before the host takes its second chunk
				}
				got = append(got, c)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			texts, others := assembled(got)
			if diff := cmp.Diff(wantTexts, texts); diff != "" {
				t.Errorf("assembled text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantOthers, others); diff != "" {
				t.Errorf("starts, ends and finish (-want +got):\n%s", diff)
			}
			if len(got) > len(manyDeltaChunks()) {
				t.Errorf("%d chunks received for %d emitted", len(got), len(manyDeltaChunks()))
			}
			t.Logf("%d chunks received for %d emitted", len(got), len(manyDeltaChunks()))
		})
	}
}

// keeper is manyDeltas with sdk.DeltaKeeper.
type keeper struct{ manyDeltas }

func (keeper) KeepDeltas() bool { return true }

// TestProviderStreamKeepsDeltas: a provider that keeps its deltas gets
// every chunk to the host as emitted, even to a slow consumer.
func TestProviderStreamKeepsDeltas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := sdktest.ConnectProvider(t, keeper{manyDeltas{emitted: make(chan struct{})}})
	h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []sdk.StreamChunk
	err = client.Stream(ctx, h, sdk.StreamRequest{}, func(c sdk.StreamChunk) error { got = append(got, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(manyDeltaChunks(), got); diff != "" {
		t.Fatalf("chunks (-want +got):\n%s", diff)
	}
}
