package llm_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

func start(i int, k sdk.BlockKind) sdk.StreamChunk {
	return sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: i, Kind: k}
}

func startTool(i int, id, name string) sdk.StreamChunk {
	return sdk.StreamChunk{Type: sdk.ChunkBlockStart, Index: i, Kind: sdk.BlockToolCall, ToolCallID: id, ToolName: name}
}

func delta(i int, s string) sdk.StreamChunk {
	return sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: i, Text: s}
}

func end(i int) sdk.StreamChunk { return sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: i} }

func finish(reason string, u *sdk.Usage) sdk.StreamChunk {
	return sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: reason, Usage: u}
}

func errChunk(kind sdk.ErrorKind) sdk.StreamChunk {
	return sdk.StreamChunk{Type: sdk.ChunkError, Err: sdk.Errorf(kind, "scripted %s", kind)}
}

type chunkEvent struct {
	Block int
	Kind  string
	Delta string
}

func TestAssembler(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		chunks  []sdk.StreamChunk
		want    llm.AssistantMessage
		events  []chunkEvent // nil: not checked
		errKind sdk.ErrorKind
		errHas  string // substring of the error message
	}{
		{
			name: "reasoning then text",
			chunks: []sdk.StreamChunk{
				start(0, sdk.BlockReasoning), delta(0, "think"), delta(0, "ing"), end(0),
				start(1, sdk.BlockText), delta(1, "Hel"), delta(1, "lo"), end(1),
				finish("stop", &sdk.Usage{PromptTokens: 10, CompletionTokens: 4}),
			},
			want: llm.AssistantMessage{Text: "Hello", Reasoning: "thinking", FinishReason: "stop", Usage: sdk.Usage{PromptTokens: 10, CompletionTokens: 4}},
			events: []chunkEvent{
				{0, "reasoning", "think"}, {0, "reasoning", "ing"}, {1, "text", "Hel"}, {1, "text", "lo"},
			},
		},
		{
			name: "reasoning signatures are kept byte for byte, redacted blocks too",
			chunks: []sdk.StreamChunk{
				start(0, sdk.BlockReasoning), delta(0, "think"),
				{Type: sdk.ChunkBlockDelta, Index: 0, Signature: "EqQB+sig/=="}, end(0),
				{Type: sdk.ChunkBlockStart, Index: 1, Kind: sdk.BlockReasoning, Redacted: true},
				{Type: sdk.ChunkBlockDelta, Index: 1, Signature: "ENCRYPTED"}, end(1),
				start(2, sdk.BlockText), delta(2, "ok"), end(2), finish("stop", nil),
			},
			want: llm.AssistantMessage{Text: "ok", Reasoning: "think", FinishReason: "stop", ReasoningBlocks: []sdk.ReasoningBlock{
				{Text: "think", Signature: "EqQB+sig/=="}, {Signature: "ENCRYPTED", Redacted: true}}},
			events: []chunkEvent{{0, "reasoning", "think"}, {2, "text", "ok"}},
		},
		{
			name: "interleaved blocks keep their own text",
			chunks: []sdk.StreamChunk{
				start(0, sdk.BlockReasoning), start(1, sdk.BlockText),
				delta(1, "A"), delta(0, "r1"), delta(1, "B"), delta(0, "r2"),
				end(1), end(0), finish("stop", nil),
			},
			want: llm.AssistantMessage{Text: "AB", Reasoning: "r1r2", FinishReason: "stop"},
		},
		{
			name: "delta for a closed block is ignored",
			chunks: []sdk.StreamChunk{
				start(0, sdk.BlockText), delta(0, "once"), end(0),
				delta(0, "once"), start(0, sdk.BlockText), delta(0, "again"), end(0),
				finish("stop", nil),
			},
			want:   llm.AssistantMessage{Text: "once", FinishReason: "stop"},
			events: []chunkEvent{{0, "text", "once"}},
		},
		{
			name:   "delta for a never opened block is text",
			chunks: []sdk.StreamChunk{delta(3, "plain"), finish("stop", nil)},
			want:   llm.AssistantMessage{Text: "plain", FinishReason: "stop"},
			events: []chunkEvent{{3, "text", "plain"}},
		},
		{
			name: "parallel tool calls in index order, counted apart from text",
			chunks: []sdk.StreamChunk{
				start(0, sdk.BlockText), delta(0, "Reading both."), end(0),
				startTool(2, "c2", "search_workspace"), startTool(1, "c1", "read_file"),
				delta(1, `{"path":`), delta(2, `{"query":"TODO"}`), delta(1, `"a.go"}`),
				end(2), end(1),
				finish("tool_calls", &sdk.Usage{CompletionTokens: 9}),
			},
			want: llm.AssistantMessage{
				Text: "Reading both.",
				ToolCalls: []sdk.ToolCall{
					{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`},
					{ID: "c2", Name: "search_workspace", Arguments: `{"query":"TODO"}`},
				},
				FinishReason: "tool_calls", Usage: sdk.Usage{CompletionTokens: 9},
			},
			events: []chunkEvent{
				{0, "text", "Reading both."}, {1, "tool_call", `{"path":`}, {2, "tool_call", `{"query":"TODO"}`}, {1, "tool_call", `"a.go"}`},
			},
		},
		{
			name:   "empty arguments are an empty object; a missing id is made up",
			chunks: []sdk.StreamChunk{startTool(0, "", "list"), end(0), finish("tool_calls", nil)},
			want:   llm.AssistantMessage{ToolCalls: []sdk.ToolCall{{ID: "call_1", Name: "list", Arguments: "{}"}}, FinishReason: "tool_calls"},
		},
		{
			name:   "open blocks are closed by finish",
			chunks: []sdk.StreamChunk{startTool(0, "c", "read_file"), delta(0, `{"path":"x"}`), finish("tool_calls", nil)},
			want:   llm.AssistantMessage{ToolCalls: []sdk.ToolCall{{ID: "c", Name: "read_file", Arguments: `{"path":"x"}`}}, FinishReason: "tool_calls"},
		},
		{
			name:   "usage chunk then finish without usage",
			chunks: []sdk.StreamChunk{{Type: sdk.ChunkUsage, Usage: &sdk.Usage{PromptTokens: 7}}, finish("stop", nil)},
			want:   llm.AssistantMessage{FinishReason: "stop", Usage: sdk.Usage{PromptTokens: 7}},
		},
		{
			name:    "chunk after finish",
			chunks:  []sdk.StreamChunk{start(0, sdk.BlockText), delta(0, "x"), finish("stop", nil), delta(0, "late")},
			errKind: sdk.KindStreamViolation, errHas: "after finish",
		},
		{
			name:    "usage after finish is a violation too",
			chunks:  []sdk.StreamChunk{finish("stop", nil), {Type: sdk.ChunkUsage, Usage: &sdk.Usage{}}},
			errKind: sdk.KindStreamViolation, errHas: "usage after finish",
		},
		{
			name:    "invalid JSON arguments name the tool",
			chunks:  []sdk.StreamChunk{startTool(0, "c9", "write_file"), delta(0, `{"path":"a",`), end(0), finish("tool_calls", nil)},
			errKind: sdk.KindStreamViolation, errHas: `tool call "write_file" (id c9`,
		},
		{
			name:    "invalid JSON arguments at finish",
			chunks:  []sdk.StreamChunk{startTool(0, "c9", "write_file"), delta(0, `{"path"`), finish("tool_calls", nil)},
			errKind: sdk.KindStreamViolation, errHas: "write_file",
		},
		{
			name:    "no finish is truncation",
			chunks:  []sdk.StreamChunk{startTool(0, "c", "read_file"), delta(0, `{"path":"x"}`), end(0)},
			errKind: sdk.KindTruncated,
		},
		{
			name:    "error chunk",
			chunks:  []sdk.StreamChunk{start(0, sdk.BlockText), delta(0, "par"), errChunk(sdk.KindRateLimited)},
			errKind: sdk.KindRateLimited,
		},
		{
			name:    "tool call without a name",
			chunks:  []sdk.StreamChunk{startTool(0, "c", "")},
			errKind: sdk.KindStreamViolation, errHas: "no tool name",
		},
		{
			name:    "block started twice as different kinds",
			chunks:  []sdk.StreamChunk{start(0, sdk.BlockText), startTool(0, "c", "read_file")},
			errKind: sdk.KindStreamViolation, errHas: "started twice",
		},
		{
			name:   "same start repeated is harmless",
			chunks: []sdk.StreamChunk{startTool(0, "c", "t"), startTool(0, "", "t"), delta(0, "{}"), end(0), finish("tool_calls", nil)},
			want:   llm.AssistantMessage{ToolCalls: []sdk.ToolCall{{ID: "c", Name: "t", Arguments: "{}"}}, FinishReason: "tool_calls"},
		},
		{
			name:    "end of a block never started",
			chunks:  []sdk.StreamChunk{end(4)},
			errKind: sdk.KindStreamViolation, errHas: "never started",
		},
		{
			name:    "unknown block kind",
			chunks:  []sdk.StreamChunk{start(0, sdk.BlockKind(9))},
			errKind: sdk.KindStreamViolation,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var events []chunkEvent
			a := llm.NewAssembler(func(block int, kind, delta string) { events = append(events, chunkEvent{block, kind, delta}) })
			var addErr error
			for _, c := range tc.chunks {
				if addErr = a.Add(c); addErr != nil {
					break
				}
			}
			msg, err := a.Message()
			if addErr != nil {
				if err != addErr {
					t.Fatalf("Add failed with %v but Message returned %v", addErr, err)
				}
				if again := a.Add(finish("stop", nil)); again != addErr {
					t.Fatalf("Add after a failure returned %v, want the first error", again)
				}
			}
			if tc.errKind != "" {
				if sdk.KindOf(err) != tc.errKind || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want kind %s containing %q", err, tc.errKind, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(msg, tc.want) {
				t.Fatalf("message\n got %+v\nwant %+v", msg, tc.want)
			}
			if tc.events != nil && !reflect.DeepEqual(events, tc.events) {
				t.Fatalf("chunk events\n got %+v\nwant %+v", events, tc.events)
			}
		})
	}
}

// FuzzAssembler feeds random chunk sequences: the assembler never panics, and
// a message it returns has only tool calls with valid JSON arguments. Seeds
// (one per assembler rule) are in testdata/fuzz/FuzzAssembler.
func FuzzAssembler(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		a := llm.NewAssembler(func(int, string, string) {})
		for _, c := range decodeChunks(data) {
			if a.Add(c) != nil {
				break
			}
		}
		msg, err := a.Message()
		if err != nil {
			if sdk.KindOf(err) == sdk.KindInternal {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		for _, tc := range msg.ToolCalls {
			if !json.Valid([]byte(tc.Arguments)) || tc.Name == "" || tc.ID == "" {
				t.Fatalf("bad tool call in a finished message: %+v", tc)
			}
		}
	})
}

// decodeChunks turns fuzz bytes into chunks: a type byte, an index byte, then
// per type a kind byte (start) or a length-prefixed text (delta).
func decodeChunks(data []byte) []sdk.StreamChunk {
	var out []sdk.StreamChunk
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	fragments := []string{"", "{", "}", `"a"`, ":", "1", "[", "]", ",", "x", "é", `"`}
	for len(data) > 0 {
		typ := sdk.ChunkType(next()%7 + 1)
		c := sdk.StreamChunk{Type: typ, Index: int(next() % 4)}
		switch typ {
		case sdk.ChunkBlockStart:
			c.Kind = sdk.BlockKind(next() % 5)
			if c.Kind == sdk.BlockToolCall {
				c.ToolName = []string{"", "read_file", "terminal"}[next()%3]
				c.ToolCallID = []string{"", "c1"}[next()%2]
			}
		case sdk.ChunkBlockDelta:
			n := int(next() % 8)
			if n > len(data) {
				n = len(data)
			}
			c.Text = string(data[:n])
			data = data[n:]
			if c.Text == "" {
				c.Text = fragments[int(next())%len(fragments)]
			}
		case sdk.ChunkUsage, sdk.ChunkFinish:
			c.Usage = &sdk.Usage{PromptTokens: int64(next())}
			c.Reason = "stop"
		case sdk.ChunkError:
			c.Err = sdk.Errorf(sdk.KindRateLimited, "x")
		}
		out = append(out, c)
	}
	return out
}

func BenchmarkAssembler(b *testing.B) {
	var chunks []sdk.StreamChunk
	chunks = append(chunks, start(0, sdk.BlockReasoning))
	for range 200 {
		chunks = append(chunks, delta(0, "reasoning a"))
	}
	chunks = append(chunks, end(0), start(1, sdk.BlockText))
	for range 500 {
		chunks = append(chunks, delta(1, "some text ."))
	}
	chunks = append(chunks, end(1), startTool(2, "c1", "write_file"), delta(2, `{"path":"a.go","content":"`))
	for range 300 {
		chunks = append(chunks, delta(2, `package x\n`))
	}
	chunks = append(chunks, delta(2, `"}`), end(2), finish("tool_calls", &sdk.Usage{PromptTokens: 1000}))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a := llm.NewAssembler(func(int, string, string) {})
		for _, c := range chunks {
			if err := a.Add(c); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := a.Message(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
}
