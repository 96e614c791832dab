package llm

import "github.com/harness-agent/harness/sdk"

// Cost returns the price in USD of usage at pricing (USD per 1M tokens), with
// cache hits priced apart from misses. Providers that report no cache split
// (hit and miss both 0) have all prompt tokens priced as misses; providers
// that report only hits have the rest of the prompt priced as misses. A nil
// pricing costs nothing.
func Cost(u sdk.Usage, p *sdk.Pricing) float64 {
	if p == nil {
		return 0
	}
	hit, miss := u.CacheHitTokens, u.CacheMissTokens
	if miss == 0 && u.PromptTokens > hit {
		miss = u.PromptTokens - hit
	}
	return (float64(hit)*p.InputCacheHit + float64(miss)*p.InputCacheMiss + float64(u.CompletionTokens)*p.Output) / 1e6
}
