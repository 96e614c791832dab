package deepseek_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

const testKey = "sk-0123456789abcdef0123456789abcdef"

// fixture returns the path of a file in the recorded deepseek fixtures.
func fixture(t testing.TB, name string) string {
	return filepath.Join(fakedeepseek.FixturesDir(t), "deepseek", name)
}

// config is the provider block JSON the core would send, pointed at srv.
func config(srv *fakedeepseek.Server, overrides map[string]any) []byte {
	cfg := map[string]any{"api_key": testKey, "base_url": srv.URL, "timeout_first_token": "10s", "timeout_idle": "10s"}
	for k, v := range overrides {
		cfg[k] = v
	}
	b, _ := json.Marshal(cfg)
	return b
}

// provider is a client for one configured provider, over the real gRPC
// boundary, with a prepared handle.
type provider struct {
	client *sdk.ProviderClient
	handle sdk.Handle
	model  sdk.ModelInfo
}

func connect(t testing.TB, client *sdk.ProviderClient, srv *fakedeepseek.Server, model string, overrides map[string]any) provider {
	t.Helper()
	ctx := context.Background()
	if err := client.Configure(ctx, config(srv, overrides)); err != nil {
		t.Fatalf("configure: %v", err)
	}
	m := sdk.ModelInfo{ID: model}
	h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: m})
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return provider{client: client, handle: h, model: m}
}

func connectInProcess(t testing.TB, srv *fakedeepseek.Server, overrides map[string]any) provider {
	t.Helper()
	return connect(t, sdktest.ConnectProvider(t, deepseek.New()), srv, "deepseek-v4-flash", overrides)
}

func userRequest(text string) sdk.StreamRequest {
	return sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: text}}}
}

// result is a stream assembled by the rules every consumer relies on; the
// protocol itself is checked on the way (see assemble).
type result struct {
	chunks          []sdk.StreamChunk
	text, reasoning string
	textDeltas      int
	reasoningDeltas int
	blocks          []sdk.BlockKind
	calls           []sdk.ToolCall
	finish          string
	usage           *sdk.Usage
	finished        bool
	err             *sdk.Error
	usageBeforeErr  *sdk.Usage
}

func (p provider) stream(t testing.TB, req sdk.StreamRequest) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var chunks []sdk.StreamChunk
	err := p.client.Stream(ctx, p.handle, req, func(c sdk.StreamChunk) error {
		chunks = append(chunks, c)
		return nil
	})
	if err != nil {
		t.Fatalf("transport error: %v", err)
	}
	return assemble(t, chunks)
}

// assemble checks the StreamChunk protocol strictly and builds the answer:
// blocks open with consecutive indexes, deltas and ends only for open
// blocks, finish or error last and only once, every block closed before
// finish, usage chunks only right before an error.
func assemble(t testing.TB, chunks []sdk.StreamChunk) result {
	t.Helper()
	r := result{chunks: chunks}
	type block struct {
		kind sdk.BlockKind
		open bool
		call int // index into r.calls for tool blocks
	}
	var blocks []*block
	fail := func(i int, format string, args ...any) {
		t.Helper()
		t.Fatalf("chunk %d (%+v): %s", i, chunks[i], fmt.Sprintf(format, args...))
	}
	for i, c := range chunks {
		if r.finished || r.err != nil {
			fail(i, "a chunk after finish or error")
		}
		if r.usageBeforeErr != nil && c.Type != sdk.ChunkError {
			fail(i, "a usage chunk not followed by the error")
		}
		switch c.Type {
		case sdk.ChunkBlockStart:
			if c.Index != len(blocks) {
				fail(i, "block index %d, want %d", c.Index, len(blocks))
			}
			b := &block{kind: c.Kind, open: true}
			if c.Kind == sdk.BlockToolCall {
				if c.ToolCallID == "" || c.ToolName == "" {
					fail(i, "tool block without id or name")
				}
				b.call = len(r.calls)
				r.calls = append(r.calls, sdk.ToolCall{ID: c.ToolCallID, Name: c.ToolName})
			}
			blocks = append(blocks, b)
			r.blocks = append(r.blocks, c.Kind)
		case sdk.ChunkBlockDelta, sdk.ChunkBlockEnd:
			if c.Index < 0 || c.Index >= len(blocks) || !blocks[c.Index].open {
				fail(i, "no open block %d", c.Index)
			}
			b := blocks[c.Index]
			if c.Type == sdk.ChunkBlockEnd {
				b.open = false
				continue
			}
			if c.Text == "" {
				fail(i, "empty delta")
			}
			switch b.kind {
			case sdk.BlockText:
				r.text += c.Text
				r.textDeltas++
			case sdk.BlockReasoning:
				r.reasoning += c.Text
				r.reasoningDeltas++
			case sdk.BlockToolCall:
				r.calls[b.call].Arguments += c.Text
			}
		case sdk.ChunkUsage:
			r.usageBeforeErr = c.Usage
		case sdk.ChunkFinish:
			for j, b := range blocks {
				if b.open {
					fail(i, "finish while block %d is open", j)
				}
			}
			r.finished, r.finish, r.usage = true, c.Reason, c.Usage
		case sdk.ChunkError:
			if c.Err == nil {
				fail(i, "error chunk without error")
			}
			r.err = c.Err
		default:
			fail(i, "unknown chunk type")
		}
	}
	if !r.finished && r.err == nil {
		t.Fatalf("stream of %d chunks ended with neither finish nor error", len(chunks))
	}
	for _, c := range r.calls {
		if r.finished && !json.Valid([]byte(c.Arguments)) {
			t.Errorf("tool call %s has arguments that are not JSON: %q", c.ID, c.Arguments)
		}
	}
	return r
}

func (r result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "finish=%q err=%v text=%q reasoning(%d bytes) calls=%+v usage=%+v", r.finish, r.err, r.text, len(r.reasoning), r.calls, r.usage)
	return b.String()
}

// wantError asserts a terminal error of kind that mentions every fragment.
func wantError(t *testing.T, r result, kind sdk.ErrorKind, fragments ...string) {
	t.Helper()
	if r.err == nil {
		t.Fatalf("got %v, want a %s error", r, kind)
	}
	if r.err.Kind != kind {
		t.Fatalf("error kind %s (%s), want %s", r.err.Kind, r.err.Message, kind)
	}
	for _, f := range fragments {
		if !strings.Contains(r.err.Message, f) {
			t.Errorf("error message %q does not mention %q", r.err.Message, f)
		}
	}
	if r.finished {
		t.Error("an errored stream must not also finish")
	}
}
