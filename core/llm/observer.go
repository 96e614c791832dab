package llm

import (
	"time"

	"github.com/harness-agent/harness/sdk"
)

// Observer receives what a caller records about a model call: llm.retry,
// assistant.chunk and llm.usage events and the token_usage rows. Within one
// Complete its methods are called in order and never concurrently.
type Observer interface {
	// OnRetry says attempt number attempt (1-based, counted over the whole
	// request) failed with kind and another attempt follows after delay (0
	// for a re-prepare after a stale handle, a restarted plugin, or a
	// fallback to the next binding). Every chunk reported since the request
	// started or since the previous OnRetry is void: drop it.
	OnRetry(attempt int, kind sdk.ErrorKind, delay time.Duration)
	// OnChunk reports a delta of block (its stream index) of kind "text",
	// "reasoning" or "tool_call" as it arrives.
	OnChunk(block int, kind, delta string)
	// OnUsage reports what one attempt consumed, failed attempts included
	// when the provider reported usage for them, with its cost in USD.
	OnUsage(b Binding, u sdk.Usage, cost float64)
}

type nopObserver struct{}

func (nopObserver) OnRetry(int, sdk.ErrorKind, time.Duration) {}
func (nopObserver) OnChunk(int, string, string)               {}
func (nopObserver) OnUsage(Binding, sdk.Usage, float64)       {}

var _ Observer = nopObserver{}
