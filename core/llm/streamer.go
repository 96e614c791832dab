package llm

import (
	"context"

	"github.com/harness-agent/harness/sdk"
)

// Streamer is one provider as the LLM layer uses it. core/runner
// implements it around a core/pluginhost provider handle: Prepare is PrepareCall with
// [Binding.PrepareRequest], Stream is Stream. A Streamer reports a plugin
// that crashed or whose connection broke as an *sdk.Error of kind
// process_exit (and starts a fresh plugin on the next call); a provider
// failure arrives as an error chunk, which Stream passes to emit like any
// other chunk. Stream calls emit in arrival order, one call at a time; when
// emit returns an error, Stream stops and returns it.
type Streamer interface {
	Prepare(ctx context.Context, b Binding) (sdk.Handle, error)
	Stream(ctx context.Context, h sdk.Handle, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error
}

// StreamerResolver returns the Streamer of an HCL provider name. The Client
// resolves it again for every attempt, so a restarted plugin is picked up.
type StreamerResolver func(provider string) (Streamer, error)
