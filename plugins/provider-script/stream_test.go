package script

import (
	"reflect"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		size int
		want []string
	}{
		{"hello world", 4, []string{"hell", "o wo", "rld"}},
		{"日本語", 4, []string{"日", "本", "語"}},
		{"日本語", 2, []string{"日", "本", "語"}},
		{"aé", 2, []string{"a", "é"}},
		{"", 4, nil},
	}
	for _, tc := range tests {
		if got := split(tc.s, tc.size); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("split(%q, %d) = %q, want %q", tc.s, tc.size, got, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	tr := &turn{reasoning: "hmm", text: "hi!", toolCalls: []toolCall{{name: "ls", arguments: ""}}}
	got := render(tr, false, 2, 2, sdk.Usage{PromptTokens: 1})
	want := []sdk.StreamChunk{
		{Type: sdk.ChunkBlockStart, Index: 0, Kind: sdk.BlockText},
		{Type: sdk.ChunkBlockDelta, Index: 0, Text: "hi"},
		{Type: sdk.ChunkBlockDelta, Index: 0, Text: "!"},
		{Type: sdk.ChunkBlockEnd, Index: 0},
		{Type: sdk.ChunkBlockStart, Index: 1, Kind: sdk.BlockToolCall, ToolCallID: "call_3_1", ToolName: "ls"},
		{Type: sdk.ChunkBlockEnd, Index: 1},
		{Type: sdk.ChunkFinish, Reason: "tool_calls", Usage: &sdk.Usage{PromptTokens: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks\n got %+v\nwant %+v", got, want)
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	tr := &turn{reasoning: "12345678", text: "1234"}
	u := estimate(tr, true, 401, 203)
	want := sdk.Usage{PromptTokens: 101, CacheHitTokens: 50, CacheMissTokens: 51, CompletionTokens: 3, ReasoningTokens: 2}
	if u != want {
		t.Fatalf("usage %+v, want %+v", u, want)
	}
	five := int64(5)
	tr.usage.completion = &five
	if u := estimate(tr, false, 4, 0); u.CompletionTokens != 5 || u.ReasoningTokens != 0 || u.PromptTokens != 1 {
		t.Fatalf("override: %+v", u)
	}
}
