package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

const anthropicKey = "sk-ant-api03-harness-test-0f1e2d3c4b5a69788796"

// anthropicConfig is an agent on the fake Anthropic server; modelExtra is
// added to the model block.
func anthropicConfig(url, modelExtra string) string {
	return fmt.Sprintf(`provider "claude" {
  plugin   = "provider-anthropic"
  api_key  = env("TEST_ANTHROPIC_KEY")
  base_url = %q
}

model "sonnet" {
  provider = "claude"
  id       = "claude-sonnet-4-5"
  thinking = false
%s
  pricing {
    input_cache_hit   = 0.30
    input_cache_miss  = 3
    input_cache_write = 3.75
    output            = 15
  }
}

agent "coder" {
  model = "sonnet"
  tools = ["read_file", "search_workspace"]
}
`, url, modelExtra)
}

func runAnthropic(t *testing.T, cfg, task string, files map[string]string) fakeRun {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	r := harness(t, dir, []string{"TEST_ANTHROPIC_KEY=" + anthropicKey}, "run", "--json", "--no-input", "agent.hcl", task)
	fr := fakeRun{dir: dir, result: r}
	if strings.TrimSpace(r.stdout) != "" {
		fr.events = parseEvents(t, r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, anthropicKey) || strings.Contains(r.stdout+r.stderr, anthropicKey[len(anthropicKey)-10:]) {
		t.Errorf("the API key leaked into the output")
	}
	return fr
}

func eventsOf(run fakeRun, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range run.events {
		if ev.Type == typ {
			var d map[string]any
			_ = json.Unmarshal(ev.Data, &d)
			out = append(out, d)
		}
	}
	return out
}

// contentOf returns the content blocks of a request's messages.
func contentOf(req fakeanthropic.Request) [][]map[string]any {
	msgs, _ := req.Body["messages"].([]any)
	out := make([][]map[string]any, len(msgs))
	for i, m := range msgs {
		blocks, _ := m.(map[string]any)["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			out[i] = append(out[i], bm)
		}
	}
	return out
}

// TestAnthropicToolCallsAndThinkingRoundTrip runs a real harness with the
// built-in provider-anthropic against the fake: an overloaded first
// attempt is retried, two parallel tool calls come back as two tool_result
// blocks of one user turn, and the thinking block goes back with its
// signature unchanged (the fake answers 400 otherwise, as the API does).
func TestAnthropicToolCallsAndThinkingRoundTrip(t *testing.T) {
	t.Parallel()
	const thought = "Both notes matter; read them together."
	fake := fakeanthropic.New(t,
		fakeanthropic.StatusError(529),
		fakeanthropic.Scripted(fakeanthropic.Turn{Thinking: thought, Text: "Reading both.", ToolCalls: []fakeanthropic.ToolCall{
			{ID: "toolu_a", Name: "read_file", Input: `{"path":"a.md"}`},
			{ID: "toolu_b", Name: "read_file", Input: `{"path":"b.md"}`},
		}}),
		fakeanthropic.Scripted(fakeanthropic.Turn{Thinking: "Now answer.", Text: "a says alpha, b says beta."}),
	)
	fake.RequireKey(anthropicKey)
	cfg := strings.Replace(anthropicConfig(fake.URL, "  thinking_budget = 2048"), "thinking = false", "thinking = true", 1)
	run := runAnthropic(t, cfg, "What do the notes say?", map[string]string{"a.md": "alpha\n", "b.md": "beta\n"})
	if run.result.code != 0 {
		t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
	}
	reqs := fake.Requests()
	var messages []fakeanthropic.Request
	for _, r := range reqs {
		if r.Path == "/v1/messages" {
			messages = append(messages, r)
		}
	}
	if len(messages) != 3 {
		t.Fatalf("%d message requests, want 3 (a retry after 529, then two turns)", len(messages))
	}
	first, second := messages[1], messages[2]
	if first.Header.Get("X-Api-Key") != anthropicKey || first.Header.Get("Anthropic-Version") == "" || first.Header.Get("Authorization") != "" {
		t.Errorf("headers: %v", first.Header)
	}
	th, _ := first.Body["thinking"].(map[string]any)
	if th["type"] != "enabled" || th["budget_tokens"] != 2048.0 || first.Body["max_tokens"].(float64) <= 2048 {
		t.Errorf("thinking %v, max_tokens %v", th, first.Body["max_tokens"])
	}
	if sys, _ := first.Body["system"].([]any); len(sys) == 0 {
		t.Errorf("no top-level system: %v", first.Body["system"])
	}
	for _, m := range first.Body["messages"].([]any) {
		if m.(map[string]any)["role"] == "system" {
			t.Error("a system message inside messages")
		}
	}
	if tools, _ := first.Body["tools"].([]any); len(tools) != 2 || tools[0].(map[string]any)["input_schema"] == nil {
		t.Errorf("tools: %v", first.Body["tools"])
	}

	content := contentOf(second)
	if len(content) != 3 {
		t.Fatalf("second request has %d messages, want task, assistant, results: %v", len(content), second.Body["messages"])
	}
	assistant, results := content[1], content[2]
	if len(assistant) != 4 || assistant[0]["type"] != "thinking" || assistant[0]["thinking"] != thought ||
		assistant[0]["signature"] != fakeanthropic.Sign(thought) || assistant[1]["text"] != "Reading both." ||
		assistant[2]["id"] != "toolu_a" || assistant[3]["id"] != "toolu_b" {
		t.Errorf("assistant turn sent back: %v", assistant)
	}
	if len(results) != 2 || results[0]["type"] != "tool_result" || results[0]["tool_use_id"] != "toolu_a" || results[1]["tool_use_id"] != "toolu_b" ||
		!strings.Contains(fmt.Sprint(results[0]["content"]), "alpha") || !strings.Contains(fmt.Sprint(results[1]["content"]), "beta") {
		t.Errorf("tool results: %v", results)
	}

	retries := eventsOf(run, "llm.retry")
	if len(retries) != 1 || retries[0]["kind"] != "provider_unavailable" {
		t.Errorf("llm.retry events %v, want one provider_unavailable", retries)
	}
	msgs := eventsOf(run, "assistant.message")
	if len(msgs) != 2 || msgs[0]["reasoning"] != thought || msgs[0]["finish_reason"] != "tool_calls" {
		t.Fatalf("assistant.message events: %v", msgs)
	}
	blocks, _ := msgs[0]["reasoning_blocks"].([]any)
	if len(blocks) != 1 || blocks[0].(map[string]any)["signature"] != fakeanthropic.Sign(thought) {
		t.Errorf("reasoning_blocks %v, want the signed block for resume", msgs[0]["reasoning_blocks"])
	}
	if resp := eventsOf(run, "agent.response"); len(resp) != 1 || resp[0]["text"] != "a says alpha, b says beta." {
		t.Errorf("agent.response %v", resp)
	}

	// Resumed, the conversation is rebuilt from the store: the signed
	// thinking blocks go back unchanged (the fake refuses them otherwise).
	fake.Enqueue(fakeanthropic.Scripted(fakeanthropic.Turn{Thinking: "Recall.", Text: "Still alpha and beta."}))
	resumed := harness(t, run.dir, []string{"TEST_ANTHROPIC_KEY=" + anthropicKey}, "run", "--json", "--no-input", "--resume", run.events[0].Session, "agent.hcl", "Again?")
	if resumed.code != 0 {
		t.Fatalf("resume: exit %d\n%s", resumed.code, resumed.stderr)
	}
	reqs = fake.Requests()
	again := contentOf(reqs[len(reqs)-1])
	if len(again) != 5 || again[1][0]["signature"] != fakeanthropic.Sign(thought) || again[3][0]["signature"] != fakeanthropic.Sign("Now answer.") {
		t.Errorf("the resumed request does not carry the signed thinking blocks: %v", again)
	}
}

// TestAnthropicRefusalIsVisible: a refusal ends the run normally with a
// structured agent.response and a line a person sees.
func TestAnthropicRefusalIsVisible(t *testing.T) {
	t.Parallel()
	fake := fakeanthropic.New(t, fakeanthropic.Fixture(t, filepath.Join(fakeanthropic.FixturesDir(t), "anthropic", "vercel-anthropic-refusal.chunks.jsonl")))
	run := runAnthropic(t, anthropicConfig(fake.URL, ""), "something refused", nil)
	if run.result.code != 0 {
		t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
	}
	resp := eventsOf(run, "agent.response")
	if len(resp) != 1 || resp[0]["refusal"] != true || !strings.Contains(fmt.Sprint(resp[0]["text"]), "Usage Policy") {
		t.Errorf("agent.response %v, want a refusal with the explanation", resp)
	}
	fake.Enqueue(fakeanthropic.Fixture(t, filepath.Join(fakeanthropic.FixturesDir(t), "anthropic", "vercel-anthropic-refusal.chunks.jsonl")))
	r := harness(t, run.dir, []string{"TEST_ANTHROPIC_KEY=" + anthropicKey}, "run", "--no-input", "agent.hcl", "again")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "refused to answer") || !strings.Contains(r.stdout+r.stderr, "0% cache hits)") {
		t.Errorf("the refusal is not shown: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	fake.Enqueue(fakeanthropic.Scripted(fakeanthropic.Turn{Text: "ok", Usage: &fakeanthropic.Usage{InputTokens: 25, CacheReadInputTokens: 25, CacheCreationInputTokens: 50, OutputTokens: 1}}))
	r = harness(t, run.dir, []string{"TEST_ANTHROPIC_KEY=" + anthropicKey}, "run", "--no-input", "agent.hcl", "cached")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "(25% cache hits, 50% cache writes)") {
		t.Errorf("the closing line does not show cache writes: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestAnthropicThirtyTurnPrefixCache repeats the DeepSeek 30-turn cache
// test for Anthropic's explicit caching: with the automatic breakpoints
// every turn reads the whole prompt of the turn before from the cache,
// writes only what is new, and is priced accordingly.
func TestAnthropicThirtyTurnPrefixCache(t *testing.T) {
	t.Parallel()
	fake := fakeanthropic.New(t)
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("notes/n%02d.md", i)
		files[name] = fmt.Sprintf("note %d: %s\n", i, strings.Repeat("words ", 30))
		fake.Enqueue(fakeanthropic.Scripted(fakeanthropic.Turn{ToolCalls: []fakeanthropic.ToolCall{{ID: fmt.Sprintf("toolu_%02d", i), Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, name)}}}))
	}
	fake.Enqueue(fakeanthropic.Scripted(fakeanthropic.Turn{Text: "read them all"}))
	// The task alone passes the 1024-token minimum a prefix needs to be cached.
	task := "Read every note under notes/, one by one. " + strings.Repeat("Keep going until all thirty are read. ", 120)
	run := runAnthropic(t, anthropicConfig(fake.URL, ""), task, files)
	if run.result.code != 0 {
		t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
	}
	type usage struct {
		PromptTokens     int64   `json:"prompt_tokens"`
		CacheHitTokens   int64   `json:"cache_hit_tokens"`
		CacheMissTokens  int64   `json:"cache_miss_tokens"`
		CacheWriteTokens int64   `json:"cache_write_tokens"`
		CompletionTokens int64   `json:"completion_tokens"`
		CostUSD          float64 `json:"cost_usd"`
	}
	var usages []usage
	for _, ev := range run.events {
		if ev.Type == "llm.usage" {
			var u usage
			_ = json.Unmarshal(ev.Data, &u)
			usages = append(usages, u)
		}
	}
	if len(usages) != 31 {
		t.Fatalf("%d requests, want 31", len(usages))
	}
	// Ideal: each request reads the whole previous prompt. Measure turns 2..31.
	var hits, ideal, writes, total int64
	for i := 1; i < len(usages); i++ {
		hits += usages[i].CacheHitTokens
		ideal += usages[i-1].PromptTokens
		writes += usages[i].CacheWriteTokens
		total += usages[i].PromptTokens
	}
	ratio := float64(hits) / float64(ideal)
	t.Logf("cache reads on turns 2..31: %d of an ideal %d tokens (%.1f%%); writes %d of %d prompt tokens", hits, ideal, 100*ratio, writes, total)
	if ratio < 0.95 {
		t.Errorf("cache reads are %.1f%% of the ideal, want ≥ 95%%", 100*ratio)
	}
	for i, u := range usages {
		if u.PromptTokens != u.CacheHitTokens+u.CacheMissTokens+u.CacheWriteTokens {
			t.Errorf("request %d: prompt %d is not hits+misses+writes %+v", i+1, u.PromptTokens, u)
		}
		want := (float64(u.CacheHitTokens)*0.30 + float64(u.CacheMissTokens)*3 + float64(u.CacheWriteTokens)*3.75 + float64(u.CompletionTokens)*15) / 1e6
		if diff := u.CostUSD - want; diff > 1e-12 || diff < -1e-12 {
			t.Errorf("request %d: cost %v, want %v", i+1, u.CostUSD, want)
		}
	}
	if usages[0].CacheWriteTokens == 0 {
		t.Errorf("the first request wrote nothing to the cache: %+v", usages[0])
	}
	for i, r := range fake.Requests() {
		if r.Path == "/v1/messages" && (r.Breakpoints < 2 || r.Breakpoints > 4) {
			t.Errorf("request %d carries %d cache breakpoints, want 2 to 4", i+1, r.Breakpoints)
		}
	}
}

// TestAnthropicWideTurnsStillReadTheCache: a turn of twelve parallel tool
// calls adds more blocks than the API looks back (20) from a breakpoint;
// the breakpoint at the end of the previous request's prompt still finds
// what that request wrote.
func TestAnthropicWideTurnsStillReadTheCache(t *testing.T) {
	t.Parallel()
	fake := fakeanthropic.New(t)
	files := map[string]string{}
	for turn := 0; turn < 4; turn++ {
		var calls []fakeanthropic.ToolCall
		for i := 0; i < 12; i++ {
			name := fmt.Sprintf("notes/t%d-n%02d.md", turn, i)
			files[name] = fmt.Sprintf("note %d of turn %d\n", i, turn)
			calls = append(calls, fakeanthropic.ToolCall{ID: fmt.Sprintf("toolu_%d_%02d", turn, i), Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, name)})
		}
		fake.Enqueue(fakeanthropic.Scripted(fakeanthropic.Turn{ToolCalls: calls}))
	}
	fake.Enqueue(fakeanthropic.Scripted(fakeanthropic.Turn{Text: "done"}))
	task := "Read every note, twelve at a time. " + strings.Repeat("All of them, please. ", 250)
	run := runAnthropic(t, anthropicConfig(fake.URL, ""), task, files)
	if run.result.code != 0 {
		t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
	}
	var hits, ideal int64
	var prev int64
	for i, u := range eventsOf(run, "llm.usage") {
		if i > 0 {
			hits += int64(u["cache_hit_tokens"].(float64))
			ideal += prev
		}
		prev = int64(u["prompt_tokens"].(float64))
	}
	t.Logf("cache reads on turns 2..5: %d of an ideal %d tokens (%.1f%%)", hits, ideal, 100*float64(hits)/float64(ideal))
	if float64(hits) < 0.95*float64(ideal) {
		t.Errorf("wide turns lose the cache: %d of %d tokens read", hits, ideal)
	}
}
