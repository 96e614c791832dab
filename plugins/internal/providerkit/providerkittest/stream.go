// Package providerkittest holds what the HTTP provider adapters' tests
// share: reading a stream through the real gRPC boundary and checking it
// against the StreamChunk protocol ([Stream], [Assemble]), comparing it
// with what a fixture wants ([CheckEnd]), asserting a terminal error
// ([WantError]), the provider block JSON ([Config]) and the checks every
// HTTP provider plugin passes as a subprocess ([CheckHTTPSettingsSchema],
// [CheckModels], [CheckStaleHandle]).
package providerkittest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/harness-agent/harness/sdk"
)

// Rules are what a provider's streams may do beyond the common protocol.
type Rules struct {
	// BlockGaps lets block indexes skip (Anthropic's server-side blocks
	// leave gaps); without it they are 0, 1, 2, ….
	BlockGaps bool
	// Signatures lets reasoning blocks carry signature deltas.
	Signatures bool
}

// Result is a stream checked against the StreamChunk protocol and
// assembled.
type Result struct {
	Chunks          []sdk.StreamChunk
	Text, Reasoning string
	TextDeltas      int
	ReasoningDeltas int
	Signatures      []string
	Blocks          []sdk.BlockKind
	Calls           []sdk.ToolCall
	Finish          string
	Usage           *sdk.Usage
	Finished        bool
	Err             *sdk.Error
	UsageBeforeErr  *sdk.Usage
}

func (r Result) String() string {
	return fmt.Sprintf("finish=%q err=%v text=%q reasoning(%d bytes) calls=%+v usage=%+v", r.Finish, r.Err, r.Text, len(r.Reasoning), r.Calls, r.Usage)
}

// Stream runs req on a prepared handle (30 s at most) and assembles what
// came back; a transport error fails the test.
func Stream(t testing.TB, rules Rules, client *sdk.ProviderClient, h sdk.Handle, req sdk.StreamRequest) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var chunks []sdk.StreamChunk
	err := client.Stream(ctx, h, req, func(c sdk.StreamChunk) error {
		chunks = append(chunks, c)
		return nil
	})
	if err != nil {
		t.Fatalf("transport error: %v", err)
	}
	return Assemble(t, rules, chunks)
}

// Assemble checks the StreamChunk protocol strictly and builds the answer:
// every block starts once, at the next index (or any higher one with
// BlockGaps), receives deltas and ends only while open; finish or error
// comes last and once, every block closed before finish; a usage chunk
// only right before an error; a finished stream's tool arguments are JSON.
func Assemble(t testing.TB, rules Rules, chunks []sdk.StreamChunk) Result {
	t.Helper()
	r := Result{Chunks: chunks}
	type block struct {
		kind sdk.BlockKind
		open bool
		call int // index into r.Calls for tool blocks
	}
	blocks := map[int]*block{}
	last := -1
	fail := func(i int, format string, args ...any) {
		t.Helper()
		t.Fatalf("chunk %d (%+v): %s", i, chunks[i], fmt.Sprintf(format, args...))
	}
	for i, c := range chunks {
		if r.Finished || r.Err != nil {
			fail(i, "a chunk after finish or error")
		}
		if r.UsageBeforeErr != nil && c.Type != sdk.ChunkError {
			fail(i, "a usage chunk not followed by the error")
		}
		switch c.Type {
		case sdk.ChunkBlockStart:
			if rules.BlockGaps && c.Index <= last {
				fail(i, "block index %d after %d", c.Index, last)
			}
			if !rules.BlockGaps && c.Index != last+1 {
				fail(i, "block index %d, want %d", c.Index, last+1)
			}
			last = c.Index
			b := &block{kind: c.Kind, open: true}
			if c.Kind == sdk.BlockToolCall {
				if c.ToolCallID == "" || c.ToolName == "" {
					fail(i, "tool block without id or name")
				}
				b.call = len(r.Calls)
				r.Calls = append(r.Calls, sdk.ToolCall{ID: c.ToolCallID, Name: c.ToolName})
			}
			blocks[c.Index] = b
			r.Blocks = append(r.Blocks, c.Kind)
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
				if !rules.Signatures || b.kind != sdk.BlockReasoning {
					fail(i, "a signature for a %s block", b.kind)
				}
				r.Signatures = append(r.Signatures, c.Signature)
			}
			switch b.kind {
			case sdk.BlockText:
				r.Text += c.Text
				r.TextDeltas++
			case sdk.BlockReasoning:
				r.Reasoning += c.Text
				r.ReasoningDeltas++
			case sdk.BlockToolCall:
				r.Calls[b.call].Arguments += c.Text
			}
		case sdk.ChunkUsage:
			r.UsageBeforeErr = c.Usage
		case sdk.ChunkFinish:
			for j, b := range blocks {
				if b.open {
					fail(i, "finish while block %d is open", j)
				}
			}
			r.Finished, r.Finish, r.Usage = true, c.Reason, c.Usage
		case sdk.ChunkError:
			if c.Err == nil {
				fail(i, "error chunk without error")
			}
			r.Err = c.Err
		default:
			fail(i, "unknown chunk type")
		}
	}
	if !r.Finished && r.Err == nil {
		t.Fatalf("stream of %d chunks ended with neither finish nor error", len(chunks))
	}
	for _, c := range r.Calls {
		if r.Finished && !json.Valid([]byte(c.Arguments)) {
			t.Errorf("tool call %s has arguments that are not JSON: %q", c.ID, c.Arguments)
		}
	}
	return r
}

// WantError asserts a terminal error of kind that mentions every fragment.
func WantError(t testing.TB, r Result, kind sdk.ErrorKind, fragments ...string) {
	t.Helper()
	if r.Err == nil {
		t.Fatalf("got %v, want a %s error", r, kind)
	}
	if r.Err.Kind != kind {
		t.Fatalf("error kind %s (%s), want %s", r.Err.Kind, r.Err.Message, kind)
	}
	for _, f := range fragments {
		if !strings.Contains(r.Err.Message, f) {
			t.Errorf("error message %q does not mention %q", r.Err.Message, f)
		}
	}
	if r.Finished {
		t.Error("an errored stream must not also finish")
	}
}

// CheckEnd compares what a stream assembled besides its text with what a
// fixture wants: its blocks, tool calls, finish reason and usage.
func CheckEnd(t testing.TB, got Result, blocks []sdk.BlockKind, calls []sdk.ToolCall, finish string, usage *sdk.Usage) {
	t.Helper()
	if diff := cmp.Diff(blocks, got.Blocks); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(calls, got.Calls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if got.Finish != finish {
		t.Errorf("finish %q, want %q", got.Finish, finish)
	}
	if diff := cmp.Diff(usage, got.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}
