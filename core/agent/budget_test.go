package agent

import (
	"testing"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

// TestBudgetCheck: before each attempt, a budget that is spent (used at
// or over its maximum) refuses with budget_exceeded; 0 is no limit.
func TestBudgetCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		budget Budget
		over   bool
	}{
		{"unlimited", Budget{Tokens: 1 << 40, CostUSD: 1e9}, false},
		{"tokens below", Budget{MaxTokens: 100, Tokens: 99}, false},
		{"tokens at", Budget{MaxTokens: 100, Tokens: 100}, true},
		{"tokens above", Budget{MaxTokens: 100, Tokens: 101}, true},
		{"usd below", Budget{MaxUSD: 1, CostUSD: 0.99}, false},
		{"usd at", Budget{MaxUSD: 1, CostUSD: 1}, true},
		{"usd above, tokens below", Budget{MaxTokens: 100, Tokens: 1, MaxUSD: 1, CostUSD: 2}, true},
	}
	for _, tt := range tests {
		err := tt.budget.Check()
		if (err != nil) != tt.over {
			t.Errorf("%s: Check() = %v, want over %v", tt.name, err, tt.over)
		}
		if err != nil && sdk.KindOf(err) != sdk.KindBudgetExceeded {
			t.Errorf("%s: kind %s, want budget_exceeded", tt.name, sdk.KindOf(err))
		}
		if spent := tt.budget.Spent(); (spent != "") != tt.over {
			t.Errorf("%s: Spent() = %q, want over %v", tt.name, spent, tt.over)
		}
	}
}

// TestBudgetSpend: an attempt counts its prompt and completion tokens and
// its cost.
func TestBudgetSpend(t *testing.T) {
	t.Parallel()
	b := Budget{MaxTokens: 1000, Tokens: 10, CostUSD: 0.5}.Spend(sdk.Usage{PromptTokens: 30, CompletionTokens: 7, CacheHitTokens: 20}, 0.25)
	if b.Tokens != 47 || b.CostUSD != 0.75 || b.MaxTokens != 1000 {
		t.Errorf("after Spend: %+v, want 47 tokens, $0.75, the same maximum", b)
	}
}

// TestBudgetStreamLimit: after every chunk, the response's output against
// max_output (with a quarter of slack for the estimate) and the session's
// totals with the response so far against the budget (reaching it exactly
// is allowed; crossing it stops the response).
func TestBudgetStreamLimit(t *testing.T) {
	t.Parallel()
	usage := func(prompt, completion int64) sdk.Usage {
		return sdk.Usage{PromptTokens: prompt, CompletionTokens: completion}
	}
	tests := []struct {
		name   string
		budget Budget
		p      llm.Progress
		want   string
	}{
		{"nothing set", Budget{}, llm.Progress{Usage: usage(1e6, 1e6), Cost: 1e3}, ""},
		{"max_output with slack", Budget{}, llm.Progress{MaxOutput: 100, Usage: usage(0, 125)}, ""},
		{"max_output crossed", Budget{}, llm.Progress{MaxOutput: 100, Usage: usage(0, 126)}, LimitMaxOutput},
		{"max_tokens reached exactly", Budget{MaxTokens: 100, Tokens: 50}, llm.Progress{Usage: usage(40, 10)}, ""},
		{"max_tokens crossed", Budget{MaxTokens: 100, Tokens: 50}, llm.Progress{Usage: usage(40, 11)}, LimitMaxTokens},
		{"max_usd reached exactly", Budget{MaxUSD: 1, CostUSD: 0.5}, llm.Progress{Cost: 0.5}, ""},
		{"max_usd crossed", Budget{MaxUSD: 1, CostUSD: 0.5}, llm.Progress{Cost: 0.51}, LimitMaxUSD},
		{"max_output first", Budget{MaxTokens: 10}, llm.Progress{MaxOutput: 4, Usage: usage(0, 20)}, LimitMaxOutput},
	}
	for _, tt := range tests {
		if got := tt.budget.StreamLimit(tt.p); got != tt.want {
			t.Errorf("%s: StreamLimit = %q, want %q", tt.name, got, tt.want)
		}
	}
}
