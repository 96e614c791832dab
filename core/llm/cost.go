package llm

import "github.com/harness-agent/harness/sdk"

// Cost returns the price in USD of usage at pricing (USD per 1M tokens), with
// cache hits and cache writes priced apart from misses. Providers that report
// no cache split (hit, miss and write all 0) have all prompt tokens priced as
// misses; providers that report only hits (and writes) have the rest of the
// prompt priced as misses. A write price of 0 prices writes as misses. A nil
// pricing costs nothing.
func Cost(u sdk.Usage, p *sdk.Pricing) float64 {
	if p == nil {
		return 0
	}
	hit, miss, write := u.CacheHitTokens, u.CacheMissTokens, u.CacheWriteTokens
	if rest := u.PromptTokens - hit - write; miss == 0 && rest > 0 {
		miss = rest
	}
	writePrice := p.InputCacheWrite
	if writePrice == 0 {
		writePrice = p.InputCacheMiss
	}
	return (float64(hit)*p.InputCacheHit + float64(miss)*p.InputCacheMiss + float64(write)*writePrice +
		float64(u.CompletionTokens)*p.Output) / 1e6
}
