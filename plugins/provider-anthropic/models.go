package anthropic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// Built-in model metadata, from Anthropic's "Models overview" and
// "Pricing" pages as published in November 2026. Prices are USD per 1M
// tokens: cache hits at 0.1× the input price and cache writes at 1.25×
// (the 5-minute cache this adapter asks for). HCL model attributes
// override every value in the core. Aliases and dated ids are both listed
// because users write either.
var builtinModels = []sdk.ModelInfo{
	claude("claude-opus-4-5", 64_000, 5, 25),
	claude("claude-opus-4-5-20251101", 64_000, 5, 25),
	claude("claude-opus-4-1", 32_000, 15, 75),
	claude("claude-opus-4-1-20250805", 32_000, 15, 75),
	claude("claude-opus-4-0", 32_000, 15, 75),
	claude("claude-opus-4-20250514", 32_000, 15, 75),
	claude("claude-sonnet-4-5", 64_000, 3, 15),
	claude("claude-sonnet-4-5-20250929", 64_000, 3, 15),
	claude("claude-sonnet-4-0", 64_000, 3, 15),
	claude("claude-sonnet-4-20250514", 64_000, 3, 15),
	claude("claude-haiku-4-5", 64_000, 1, 5),
	claude("claude-haiku-4-5-20251001", 64_000, 1, 5),
}

func claude(id string, maxOutput int64, input, output float64) sdk.ModelInfo {
	return sdk.ModelInfo{
		ID:            id,
		ContextWindow: 200_000,
		MaxOutput:     maxOutput,
		Pricing: &sdk.Pricing{InputCacheMiss: input, InputCacheHit: input / 10, InputCacheWrite: input * 1.25,
			Output: output},
		SupportsTools:     true,
		SupportsReasoning: true,
		SupportsCaching:   true,
	}
}

// builtinList returns a copy of the built-in metadata.
func builtinList() []sdk.ModelInfo {
	out := make([]sdk.ModelInfo, len(builtinModels))
	for i, m := range builtinModels {
		if m.Pricing != nil {
			p := *m.Pricing
			m.Pricing = &p
		}
		out[i] = m
	}
	return out
}

// mergeListed adds the ids the API listed to the built-in metadata. An id
// the built-ins lack takes the metadata of the longest built-in id it
// starts with ("claude-sonnet-4-5-20260101" that of claude-sonnet-4-5),
// else a 200k window, 8192 output tokens and no pricing (set them in the
// model block).
func mergeListed(known []sdk.ModelInfo, ids []string) []sdk.ModelInfo {
	have := map[string]bool{}
	for _, m := range known {
		have[m.ID] = true
	}
	out := known
	for _, id := range ids {
		if id == "" || have[id] {
			continue
		}
		have[id] = true
		m := sdk.ModelInfo{ID: id, ContextWindow: 200_000, MaxOutput: 8192, SupportsTools: true, SupportsCaching: true}
		best := ""
		for _, k := range known {
			if strings.HasPrefix(id, k.ID) && len(k.ID) > len(best) {
				best, m = k.ID, k
				m.ID = id
				if k.Pricing != nil {
					p := *k.Pricing
					m.Pricing = &p
				}
			}
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// listModels asks GET /v1/models for the ids the key may use.
func listModels(ctx context.Context, g *generation) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, g.Config.firstToken)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.Config.models+"?limit=1000", nil)
	if err != nil {
		return nil, err
	}
	setHeaders(g, req)
	resp, err := g.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp, time.Now())
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&page); err != nil {
		return nil, sdk.Errorf(sdk.KindProviderUnavailable, "anthropic: GET %s: the model list is not JSON: %v", g.Config.models, err)
	}
	ids := make([]string, len(page.Data))
	for i, d := range page.Data {
		ids[i] = d.ID
	}
	return ids, nil
}

// setHeaders puts the configured headers, the key and the API version on
// a request.
func setHeaders(g *generation, req *http.Request) {
	for k, vs := range g.Config.headers {
		req.Header[k] = append([]string(nil), vs...)
	}
	if g.Config.apiKey != "" {
		req.Header.Set("X-Api-Key", g.Config.apiKey)
	}
}
