package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

const testKey = "sk-ant-api03-0123456789abcdef0123456789abcdef-XYZW"

// fixture returns the path of a file in the recorded anthropic fixtures.
func fixture(t testing.TB, name string) string {
	return filepath.Join(fakeanthropic.FixturesDir(t), "anthropic", name)
}

// config is the provider block JSON the core would send, pointed at srv.
func config(srv *fakeanthropic.Server, overrides map[string]any) []byte {
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

func connect(t testing.TB, client *sdk.ProviderClient, srv *fakeanthropic.Server, prep sdk.PrepareRequest, overrides map[string]any) provider {
	t.Helper()
	ctx := context.Background()
	if err := client.Configure(ctx, config(srv, overrides)); err != nil {
		t.Fatalf("configure: %v", err)
	}
	if prep.Model.ID == "" {
		prep.Model = sdk.ModelInfo{ID: "claude-sonnet-4-5", MaxOutput: 64_000}
	}
	h, err := client.PrepareCall(ctx, prep)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return provider{client: client, handle: h, model: prep.Model}
}

func connectInProcess(t testing.TB, srv *fakeanthropic.Server, overrides map[string]any) provider {
	t.Helper()
	return connect(t, sdktest.ConnectProvider(t, anthropic.New()), srv, sdk.PrepareRequest{}, overrides)
}

func userRequest(text string) sdk.StreamRequest {
	return sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: text, Pinned: true}}}
}

// result is a stream checked against the StreamChunk protocol and
// assembled.
type result struct {
	chunks         []sdk.StreamChunk
	text           string
	reasoning      string
	signatures     []string
	blocks         []sdk.BlockKind
	calls          []sdk.ToolCall
	finish         string
	usage          *sdk.Usage
	finished       bool
	err            *sdk.Error
	usageBeforeErr *sdk.Usage
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

// assemble checks the StreamChunk protocol strictly: every block starts
// once, at an index above the previous ones (server-side blocks leave
// gaps), receives deltas and ends only while open; finish or error comes
// last and once, every block closed before finish; a usage chunk only
// right before an error.
func assemble(t testing.TB, chunks []sdk.StreamChunk) result {
	t.Helper()
	r := result{chunks: chunks}
	type block struct {
		kind sdk.BlockKind
		open bool
		call int
	}
	blocks := map[int]*block{}
	last := -1
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
			if c.Index <= last {
				fail(i, "block index %d after %d", c.Index, last)
			}
			last = c.Index
			b := &block{kind: c.Kind, open: true}
			if c.Kind == sdk.BlockToolCall {
				if c.ToolCallID == "" || c.ToolName == "" {
					fail(i, "tool block without id or name")
				}
				b.call = len(r.calls)
				r.calls = append(r.calls, sdk.ToolCall{ID: c.ToolCallID, Name: c.ToolName})
			}
			blocks[c.Index] = b
			r.blocks = append(r.blocks, c.Kind)
		case sdk.ChunkBlockDelta, sdk.ChunkBlockEnd:
			b := blocks[c.Index]
			if b == nil || !b.open {
				fail(i, "no open block %d", c.Index)
			}
			if c.Type == sdk.ChunkBlockEnd {
				b.open = false
				continue
			}
			if c.Text == "" && c.Signature == "" {
				fail(i, "empty delta")
			}
			if c.Signature != "" {
				if b.kind != sdk.BlockReasoning {
					fail(i, "a signature for a %s block", b.kind)
				}
				r.signatures = append(r.signatures, c.Signature)
			}
			switch b.kind {
			case sdk.BlockText:
				r.text += c.Text
			case sdk.BlockReasoning:
				r.reasoning += c.Text
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
	return fmt.Sprintf("finish=%q err=%v text=%q reasoning(%d bytes) calls=%+v usage=%+v", r.finish, r.err, r.text, len(r.reasoning), r.calls, r.usage)
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
