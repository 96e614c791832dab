package llm_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

func ptr[T any](v T) *T { return &v }

var deepseekModels = []sdk.ModelInfo{
	{ID: "deepseek-chat", ContextWindow: 128000, MaxOutput: 8000, Pricing: &sdk.Pricing{InputCacheHit: 0.07, InputCacheMiss: 0.27, Output: 1.1}, SupportsTools: true},
	{ID: "deepseek-reasoner", ContextWindow: 128000, MaxOutput: 64000, SupportsTools: true, SupportsReasoning: true},
}

func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		decl    llm.ModelDecl
		want    llm.Binding
		wantErr string
	}{
		{
			name: "provider metadata with HCL overrides",
			decl: llm.ModelDecl{Name: "flash", Provider: "deepseek", ID: "deepseek-chat", ContextWindow: 1000000, ReplayReasoning: true,
				Pricing: &sdk.Pricing{InputCacheHit: 0.003, InputCacheMiss: 0.15, Output: 0.6}},
			want: llm.Binding{Name: "flash", Provider: "deepseek", ReplayReasoning: true, Model: sdk.ModelInfo{
				ID: "deepseek-chat", ContextWindow: 1000000, MaxOutput: 8000, SupportsTools: true,
				Pricing: &sdk.Pricing{InputCacheHit: 0.003, InputCacheMiss: 0.15, Output: 0.6}}},
		},
		{
			name: "id defaults to the name; thinking follows reasoning support",
			decl: llm.ModelDecl{Name: "deepseek-reasoner", Provider: "deepseek"},
			want: llm.Binding{Name: "deepseek-reasoner", Provider: "deepseek", Thinking: true, Model: deepseekModels[1]},
		},
		{
			name: "thinking off by HCL",
			decl: llm.ModelDecl{Name: "r", Provider: "deepseek", ID: "deepseek-reasoner", Thinking: ptr(false), MaxOutput: 100},
			want: llm.Binding{Name: "r", Provider: "deepseek", Model: sdk.ModelInfo{ID: "deepseek-reasoner", ContextWindow: 128000, MaxOutput: 100, SupportsTools: true, SupportsReasoning: true}},
		},
		{
			name: "unknown id with a context window",
			decl: llm.ModelDecl{Name: "next", Provider: "deepseek", ID: "deepseek-v9", ContextWindow: 256000, Thinking: ptr(true)},
			want: llm.Binding{Name: "next", Provider: "deepseek", Thinking: true, Model: sdk.ModelInfo{ID: "deepseek-v9", ContextWindow: 256000, SupportsTools: true, SupportsReasoning: true}},
		},
		{
			name:    "unknown id without a context window",
			decl:    llm.ModelDecl{Name: "next", Provider: "deepseek", ID: "deepseek-v9"},
			wantErr: `model "next": provider "deepseek" does not report a model "deepseek-v9" (it reports: deepseek-chat, deepseek-reasoner); set context_window`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := llm.Merge(tc.decl, deepseekModels)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Model.Pricing != nil && got.Model.Pricing == deepseekModels[0].Pricing {
				t.Error("binding shares the provider's pricing pointer")
			}
			if !equalBinding(got, tc.want) {
				t.Fatalf("binding\n got %+v %+v\nwant %+v %+v", got, got.Model.Pricing, tc.want, tc.want.Model.Pricing)
			}
		})
	}
}

func equalBinding(a, b llm.Binding) bool {
	pa, pb := a.Model.Pricing, b.Model.Pricing
	a.Model.Pricing, b.Model.Pricing = nil, nil
	return a == b && (pa == nil) == (pb == nil) && (pa == nil || *pa == *pb)
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	calls := map[string]int{}
	list := func(_ context.Context, provider string) ([]sdk.ModelInfo, error) {
		calls[provider]++
		return deepseekModels, nil
	}
	r, err := llm.NewRegistry([]llm.ModelDecl{
		{Name: "flash", Provider: "deepseek", ID: "deepseek-chat"},
		{Name: "think", Provider: "deepseek", ID: "deepseek-reasoner"},
		{Name: "offline", Provider: "script", ID: "script"},
	}, list)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := r.ResolveAll(context.Background(), []string{"flash", "think"})
	if err != nil || len(bs) != 2 || bs[0].Name != "flash" || bs[1].Model.ID != "deepseek-reasoner" {
		t.Fatalf("%+v %v", bs, err)
	}
	if calls["deepseek"] != 1 || calls["script"] != 0 {
		t.Fatalf("provider models asked %v: want deepseek once and script never", calls)
	}
	if _, err := r.Resolve(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), `model "nope" is not declared (declared: flash, offline, think)`) {
		t.Fatalf("error %v", err)
	}
	if _, err := llm.NewRegistry([]llm.ModelDecl{{Name: "a", Provider: "p"}, {Name: "a", Provider: "p"}, {Name: "b"}}, list); err == nil ||
		!strings.Contains(err.Error(), `model "a" is declared twice; model "b" names no provider`) {
		t.Fatalf("error %v", err)
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	p := &sdk.Pricing{InputCacheHit: 0.1, InputCacheMiss: 1, Output: 2}
	tests := []struct {
		name string
		u    sdk.Usage
		p    *sdk.Pricing
		want float64
	}{
		{"hits priced apart", sdk.Usage{PromptTokens: 1_000_000, CacheHitTokens: 800_000, CacheMissTokens: 200_000, CompletionTokens: 500_000}, p, 0.08 + 0.2 + 1},
		{"no split: all misses", sdk.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000}, p, 3},
		{"hits only: the rest are misses", sdk.Usage{PromptTokens: 1_000_000, CacheHitTokens: 500_000}, p, 0.05 + 0.5},
		{"no pricing", sdk.Usage{PromptTokens: 1_000_000}, nil, 0},
		{"writes priced apart", sdk.Usage{PromptTokens: 1_000_000, CacheHitTokens: 500_000, CacheMissTokens: 100_000, CacheWriteTokens: 400_000},
			&sdk.Pricing{InputCacheHit: 0.1, InputCacheMiss: 1, InputCacheWrite: 1.25, Output: 2}, 0.05 + 0.1 + 0.5},
		{"writes without a write price cost a miss", sdk.Usage{PromptTokens: 1_000_000, CacheWriteTokens: 400_000}, p, 0.4 + 0.6},
		{"hits and writes only: the rest are misses", sdk.Usage{PromptTokens: 1_000_000, CacheHitTokens: 500_000, CacheWriteTokens: 300_000},
			&sdk.Pricing{InputCacheHit: 0.1, InputCacheMiss: 1, InputCacheWrite: 2, Output: 2}, 0.05 + 0.6 + 0.2},
	}
	for _, tc := range tests {
		if got := llm.Cost(tc.u, tc.p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: cost %v, want %v", tc.name, got, tc.want)
		}
	}
}
