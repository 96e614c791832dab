package event_test

import (
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/sdk"
)

// TestChunkKindsAreTheBlockKinds: an assistant.chunk's kind is the name of
// the stream block it came from (the llm layer writes sdk.BlockKind's
// String), so the constants readers compare with must be those names.
func TestChunkKindsAreTheBlockKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		chunk string
		block sdk.BlockKind
	}{
		{event.ChunkText, sdk.BlockText},
		{event.ChunkReasoning, sdk.BlockReasoning},
		{event.ChunkToolCall, sdk.BlockToolCall},
	}
	for _, tt := range tests {
		if tt.chunk != tt.block.String() {
			t.Errorf("chunk kind %q, but the llm layer writes %q for that block", tt.chunk, tt.block.String())
		}
	}
}
