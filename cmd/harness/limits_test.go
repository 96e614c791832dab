package main_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// TestFaultEndlessStreamStopsAtEachLimit: a server that streams text and
// never finishes (no usage, no [DONE]) is stopped while it streams by each
// output limit; the run exits 3 with the estimated usage and cost recorded.
func TestFaultEndlessStreamStopsAtEachLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, limit, model, agent string
	}{
		{name: "max_output", limit: "max_output", model: "  max_output     = 4096\n"},
		{name: "max_tokens", limit: "max_tokens", agent: "  budget {\n    max_tokens = 6000\n  }"},
		{name: "max_usd", limit: "max_usd", agent: "  budget {\n    max_usd = 0.004\n  }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := fakedeepseek.New(t)
			fake.Repeat(fakedeepseek.Endless(strings.Repeat("and on ", 9)+"\n", time.Millisecond))
			cfg := deepseekConfig(fake.URL, tt.agent, "")
			cfg = strings.Replace(cfg, "  context_window = 1000000\n", "  context_window = 1000000\n"+tt.model, 1)
			run := runFake(t, cfg, nil)
			if run.result.code != 3 {
				t.Fatalf("exit %d, want 3 (a limit stopped the run)\nstderr:\n%s", run.result.code, run.result.stderr)
			}
			limits := eventData(run.events, "toolloop.limit_reached")
			if len(limits) != 1 || limits[0]["limit"] != tt.limit {
				t.Errorf("toolloop.limit_reached %v, want one with limit %s", limits, tt.limit)
			}
			usage := eventData(run.events, "llm.usage")
			if len(usage) != 1 {
				t.Fatalf("%d llm.usage events, want the stopped response's", len(usage))
			}
			u := usage[0]
			if u["estimated"] != true || u["completion_tokens"].(float64) <= 0 || u["prompt_tokens"].(float64) <= 0 || u["cost_usd"].(float64) <= 0 {
				t.Errorf("llm.usage of the stopped response: %v; want estimated, non-zero tokens and cost", u)
			}
			ends := eventData(run.events, "session.ended")
			if len(ends) != 1 || ends[0]["status"] != "limit" || ends[0]["tokens"].(float64) <= 0 || ends[0]["cost_usd"].(float64) <= 0 {
				t.Errorf("session.ended %v, want status limit with the usage counted", ends)
			}
			if n := len(eventData(run.events, "assistant.message")); n != 0 {
				t.Errorf("%d assistant.message events: a stopped response is not an answer", n)
			}
			if n := len(fake.Requests()); n != 1 {
				t.Errorf("%d requests, want 1: a limit is not retried", n)
			}
			// The store has the usage too, for the next resume's budget.
			list := harness(t, run.dir, nil, "sessions", "list")
			if list.code != 0 || !strings.Contains(list.stdout, "limit") {
				t.Errorf("sessions list: exit %d\n%s%s", list.code, list.stdout, list.stderr)
			}
			if tokens := fmt.Sprint(ends[0]["tokens"]); !strings.Contains(strings.ReplaceAll(list.stdout, ",", ""), tokens) {
				t.Errorf("sessions list does not show the %s tokens used:\n%s", tokens, list.stdout)
			}
			assertNoProcsLeft(t, run.dir, 2*time.Second)
		})
	}
}
