package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

const apiKey = "sk-harness-test-9f8e7d6c5b4a3210"

// deepseekConfig is an agent on the fake DeepSeek server; extra is added to
// the agent block, more after it.
func deepseekConfig(url, agentExtra, more string) string {
	return fmt.Sprintf(`provider "deepseek" {
  api_key  = env("TEST_DEEPSEEK_KEY")
  base_url = %q
}

model "flash" {
  provider       = "deepseek"
  id             = "deepseek-v4-flash"
  context_window = 1000000
  thinking       = false
  pricing {
    input_cache_hit  = 0.02
    input_cache_miss = 0.30
    output           = 1.20
  }
}

agent "coder" {
  model = "flash"
  tools = ["read_file", "search_workspace"]
%s
}
%s`, url, agentExtra, more)
}

type fakeRun struct {
	dir    string
	result result
	events []event
}

func runFake(t *testing.T, cfg string, files map[string]string) fakeRun {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "run", "--json", "--no-input", "agent.hcl", "Look at the notes")
	fr := fakeRun{dir: dir, result: r}
	if strings.TrimSpace(r.stdout) != "" {
		fr.events = parseEvents(t, r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, apiKey) || strings.Contains(r.stdout+r.stderr, apiKey[len(apiKey)-8:]) {
		t.Errorf("the API key leaked into the output")
	}
	return fr
}

func readCall(id, path string) fakedeepseek.Turn {
	return fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":%q}`, path)}}}
}

func messagesOf(t *testing.T, req fakedeepseek.Request) []map[string]any {
	t.Helper()
	raw, _ := req.Body["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i], _ = m.(map[string]any)
	}
	return out
}

func TestMultiTurnToolSessionCarriesResultsBack(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(readCall("call_1", "notes.md")),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The notes say hello."}),
	)
	fake.RequireKey(apiKey)
	run := runFake(t, deepseekConfig(fake.URL, "", ""), map[string]string{"notes.md": "hello from the notes\n"})
	if run.result.code != 0 {
		t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	second := messagesOf(t, reqs[1])
	var sawCall, sawResult bool
	for _, m := range second {
		if m["role"] == "assistant" && m["tool_calls"] != nil {
			sawCall = true
		}
		if m["role"] == "tool" && m["tool_call_id"] == "call_1" && strings.Contains(fmt.Sprint(m["content"]), "hello from the notes") {
			sawResult = true
		}
	}
	if !sawCall || !sawResult {
		t.Fatalf("the second request does not carry the call and its result back:\n%v", second)
	}
	first := messagesOf(t, reqs[0])
	if fmt.Sprint(first[0]) != fmt.Sprint(second[0]) || fmt.Sprint(first[1]) != fmt.Sprint(second[1]) {
		t.Error("system prompt or task changed between requests")
	}
	if got := types(run.events); got["llm.usage"] != 2 || got["agent.response"] != 1 {
		t.Errorf("events: %v", got)
	}
}

func TestLimitsStopTheRunWithExit3(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, agentExtra, limit string
		turns                   func(i int) fakedeepseek.Turn
	}{
		{"max_turns", "  max_turns = 2", "max_turns", func(i int) fakedeepseek.Turn { return readCall(fmt.Sprint("c", i), fmt.Sprintf("f%d.md", i)) }},
		{"max_usd", "  budget {\n    max_usd = 0.0000001\n  }", "max_usd", func(i int) fakedeepseek.Turn { return readCall(fmt.Sprint("c", i), fmt.Sprintf("f%d.md", i)) }},
		{"repeated_call", "", "repeated_call", func(i int) fakedeepseek.Turn { return readCall(fmt.Sprint("c", i), "same.md") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := fakedeepseek.New(t)
			for i := 0; i < 12; i++ {
				fake.Enqueue(fakedeepseek.Scripted(tt.turns(i)))
			}
			run := runFake(t, deepseekConfig(fake.URL, tt.agentExtra, ""), map[string]string{"same.md": "x\n"})
			if run.result.code != 3 {
				t.Fatalf("exit %d, want 3\n%s", run.result.code, run.result.stderr)
			}
			var limit string
			for _, ev := range run.events {
				if ev.Type == "toolloop.limit_reached" {
					var d struct{ Limit string }
					_ = json.Unmarshal(ev.Data, &d)
					limit = d.Limit
				}
			}
			if limit != tt.limit {
				t.Errorf("limit %q, want %q", limit, tt.limit)
			}
		})
	}
}

func TestCompactionKeepsPinnedMessagesAndUsesTheSummarizer(t *testing.T) {
	t.Parallel()
	for _, summarizerFails := range []bool{false, true} {
		t.Run(fmt.Sprintf("summarizer_fails=%v", summarizerFails), func(t *testing.T) {
			t.Parallel()
			fake := fakedeepseek.New(t)
			big := strings.Repeat("a line of notes that fills the context window quickly\n", 40)
			files := map[string]string{}
			for i := 0; i < 5; i++ {
				files[fmt.Sprintf("n%d.md", i)] = big
				fake.Enqueue(fakedeepseek.Scripted(readCall(fmt.Sprint("c", i), fmt.Sprintf("n%d.md", i))))
			}
			fake.Repeat(fakedeepseek.Scripted(fakedeepseek.Turn{Text: "done"}))
			// The summarizer has a server of its own: it answers, or fails
			// without a retry (invalid_request).
			summ := fakedeepseek.New(t)
			if summarizerFails {
				summ.Repeat(fakedeepseek.HTTPError(400, "bad summary request", "invalid_request_error", "invalid_request"))
			} else {
				summ.Repeat(fakedeepseek.Scripted(fakedeepseek.Turn{Text: "SUMMARY: the notes were read."}))
			}
			cfg := deepseekConfig(fake.URL,
				"  context {\n    threshold   = 0.5\n    keep_recent = 1\n    summarizer  = \"summ\"\n  }",
				fmt.Sprintf(`provider "summarizer" {
  base_url = %q
}

model "small" {
  provider       = "summarizer"
  id             = "deepseek-v4-pro"
  context_window = 8000
}

agent "summ" {
  model = "small"
}
`, summ.URL))
			cfg = strings.Replace(cfg, "context_window = 1000000", "context_window = 2500", 1)
			run := runFake(t, cfg, files)
			if run.result.code != 0 && run.result.code != 3 {
				t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
			}
			var compactions []map[string]any
			for _, ev := range run.events {
				if ev.Type == "context.compacted" {
					var d map[string]any
					_ = json.Unmarshal(ev.Data, &d)
					compactions = append(compactions, d)
				}
			}
			if len(compactions) == 0 {
				t.Fatalf("no compaction; events %v", types(run.events))
			}
			var mains [][]map[string]any
			for _, req := range fake.Requests() {
				mains = append(mains, messagesOf(t, req))
			}
			summaries := summ.Requests()
			if len(summaries) == 0 {
				t.Fatal("no request went to the summarizer's model")
			}
			for _, req := range summaries {
				msgs := messagesOf(t, req)
				if req.Body["model"] != "deepseek-v4-pro" || !strings.Contains(fmt.Sprint(msgs[0]["content"]), "compress the history") {
					t.Errorf("summary request: model %v, system %v", req.Body["model"], msgs[0])
				}
			}
			if summarizerFails && len(summaries) > 2*len(compactions) {
				t.Errorf("%d summarizer requests for %d compactions: at most one retry each", len(summaries), len(compactions))
			}
			for i, m := range mains[1:] {
				if fmt.Sprint(m[0]) != fmt.Sprint(mains[0][0]) || fmt.Sprint(m[1]) != fmt.Sprint(mains[0][1]) {
					t.Fatalf("request %d: system prompt or task not byte-identical after compaction", i+2)
				}
			}
			want := "model"
			if summarizerFails {
				want = "fallback"
			}
			if compactions[0]["summarizer"] != want {
				t.Errorf("summarizer %v, want %s", compactions[0]["summarizer"], want)
			}
		})
	}
}

func TestThirtyTurnSessionKeepsThePrefixCacheWarm(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t)
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("notes/n%02d.md", i)
		files[name] = fmt.Sprintf("note %d: %s\n", i, strings.Repeat("words ", 30))
		fake.Enqueue(fakedeepseek.Scripted(readCall(fmt.Sprintf("call_%02d", i), name)))
	}
	fake.Enqueue(fakedeepseek.Scripted(fakedeepseek.Turn{Text: "read them all"}))
	run := runFake(t, deepseekConfig(fake.URL, "", ""), files)
	if run.result.code != 0 {
		t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
	}
	type usage struct {
		PromptTokens   int64 `json:"prompt_tokens"`
		CacheHitTokens int64 `json:"cache_hit_tokens"`
	}
	var usages []usage
	var prefixes []int64
	for _, ev := range run.events {
		switch ev.Type {
		case "llm.usage":
			var u usage
			_ = json.Unmarshal(ev.Data, &u)
			usages = append(usages, u)
		case "llm.request":
			var d struct {
				SharedPrefixBytes int64 `json:"shared_prefix_bytes"`
				PromptBytes       int64 `json:"prompt_bytes"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			prefixes = append(prefixes, d.SharedPrefixBytes)
		}
	}
	if len(usages) != 31 {
		t.Fatalf("%d requests, want 31", len(usages))
	}
	// Ideal: each request hits the whole previous prompt, in DeepSeek's
	// 64-token units. Measure turns 2..30.
	var hits, ideal int64
	for i := 1; i < 30; i++ {
		hits += usages[i].CacheHitTokens
		ideal += usages[i-1].PromptTokens / 64 * 64
	}
	ratio := float64(hits) / float64(ideal)
	t.Logf("cache hits on turns 2..30: %d of an ideal %d tokens (%.1f%%)", hits, ideal, 100*ratio)
	if ratio < 0.95 {
		t.Errorf("cache hits are %.1f%% of the ideal, want ≥ 95%%", 100*ratio)
	}
	// Every request extends the one before it byte for byte.
	reqs := fake.Requests()
	for i := 1; i < len(reqs); i++ {
		prev, cur := messagesOf(t, reqs[i-1]), messagesOf(t, reqs[i])
		for j := range prev {
			if fmt.Sprint(prev[j]) != fmt.Sprint(cur[j]) {
				t.Fatalf("request %d changes message %d of request %d", i+1, j, i)
			}
		}
		if prefixes[i] == 0 {
			t.Errorf("llm.request %d records no shared prefix", i+1)
		}
	}
}

func TestDeferApproveResume(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Creating the marker.", ToolCalls: []fakedeepseek.ToolCall{{ID: "call_t", Name: "terminal", Arguments: `{"command":"touch approved.txt"}`}}}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The command waits for approval."}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The marker exists now."}),
	)
	cfg := strings.Replace(deepseekConfig(fake.URL, "  permissions {\n    unattended = \"defer\"\n  }", ""),
		`tools = ["read_file", "search_workspace"]`, `tools = ["read_file", "terminal"]`, 1)
	run := runFake(t, cfg, nil)
	if run.result.code != 4 {
		t.Fatalf("exit %d, want 4 (pending approval)\n%s", run.result.code, run.result.stderr)
	}
	if _, err := os.Stat(filepath.Join(run.dir, "approved.txt")); err == nil {
		t.Fatal("the deferred command ran before approval")
	}
	env := []string{"TEST_DEEPSEEK_KEY=" + apiKey}
	list := harness(t, run.dir, env, "actions", "list")
	fields := strings.Fields(strings.Split(strings.TrimSpace(list.stdout), "\n")[1])
	if list.code != 0 || len(fields) == 0 || !strings.Contains(list.stdout, "pending") {
		t.Fatalf("actions list: %+v", list)
	}
	id := fields[0]
	if r := harness(t, run.dir, env, "actions", "approve", id); r.code != 0 {
		t.Fatalf("actions approve: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(run.dir, "approved.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	resumed := harness(t, run.dir, env, "run", "--json", "--no-input", "--resume", run.events[0].Session, "agent.hcl")
	if resumed.code != 0 {
		t.Fatalf("resume: exit %d\n%s", resumed.code, resumed.stderr)
	}
	reqs := fake.Requests()
	last := messagesOf(t, reqs[len(reqs)-1])
	if !strings.Contains(fmt.Sprint(last[len(last)-1]["content"]), "was approved and ran") {
		t.Errorf("the resumed request does not tell the model about the approval: %v", last[len(last)-1])
	}
	first := messagesOf(t, reqs[1])
	for i := range first {
		if fmt.Sprint(first[i]) != fmt.Sprint(last[i]) {
			t.Fatalf("resume changed message %d of the earlier conversation", i)
		}
	}
}
