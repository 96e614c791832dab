package view

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/harness-agent/harness/core/session"
)

// recording builds a session's events in memory, numbered like the store
// numbers them.
type recording struct {
	info   session.SessionInfo
	events []session.Event
	now    time.Time
}

func newRecording(id string) *recording {
	start := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	return &recording{info: session.SessionInfo{ID: id, Agent: "tester", Model: "scripted", ConfigPath: "/w/agent.hcl",
		Workspace: "/w", Status: "completed", StartedAt: start}, now: start}
}

func (r *recording) add(typ string, data map[string]any) int64 {
	raw, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	r.now = r.now.Add(3 * time.Millisecond)
	seq := int64(len(r.events) + 1)
	r.events = append(r.events, session.Event{Seq: seq, Time: r.now, Session: r.info.ID, Type: typ, Data: raw})
	return seq
}

// synthetic is a session of about n events shaped like real runs: turns
// of a request, streamed chunks, usage, a message and a tool call with its
// approval, output and result, rotating through the presentation views.
func synthetic(n int) *recording {
	r := newRecording("s-synthetic")
	r.add("session.started", map[string]any{"agent": "tester", "model": "scripted", "workspace": "/w", "config": "/w/agent.hcl", "task": "Work through the backlog"})
	views := []map[string]any{
		{"kind": "terminal", "command": "go test ./...", "exit_code": 1, "output": "--- FAIL: TestX\n    x_test.go:12: got 1, want 2\nFAIL\n"},
		{"kind": "diff", "path": "src/a.go", "unified": "--- a/src/a.go\n+++ b/src/a.go\n@@ -1,3 +1,3 @@\n package a\n-var x = 1\n+var x = 2\n"},
		{"kind": "search", "query": "TODO", "total": 2, "hits": []map[string]any{{"path": "a.go", "line": 3, "text": "// TODO: x"}, {"path": "b.go", "line": 9, "text": "// TODO: y"}}},
		{"kind": "file", "path": "README.md", "start_line": 1, "end_line": 3},
		{"kind": "text", "text": "Recorded the note."},
	}
	for turn := 1; len(r.events) < n-2; turn++ {
		r.add("llm.request", map[string]any{"turn": turn, "model": "scripted", "messages": 2 * turn, "prompt_tokens_est": 2400 + 80*turn, "shared_prefix_bytes": 9000 + 300*turn, "prompt_bytes": 9400 + 300*turn})
		for b := range 8 {
			r.add("assistant.chunk", map[string]any{"block": b / 4, "kind": "text", "delta": "some streamed text "})
		}
		r.add("llm.usage", map[string]any{"turn": turn, "model": "scripted", "prompt_tokens": 2400 + 80*turn, "completion_tokens": 40 + turn%30,
			"cache_hit_tokens": 2300 + 80*turn, "cache_miss_tokens": 100, "reasoning_tokens": 0, "cost_usd": 0.00004})
		call := fmt.Sprintf("call_%d_1", turn)
		r.add("assistant.message", map[string]any{"turn": turn, "model": "scripted", "content": fmt.Sprintf("Step %d: checking the next item.", turn),
			"reasoning": "Think about what is left.", "finish_reason": "tool_calls", "tool_calls": []map[string]any{{"id": call, "name": "terminal", "arguments": map[string]any{"command": "go test ./..."}}}})
		r.add("tool.call", map[string]any{"call_id": call, "tool": "terminal", "arguments": map[string]any{"command": "go test ./..."}})
		action := fmt.Sprintf("a-%08x", turn)
		r.add("action.proposed", map[string]any{"action_id": action, "call_id": call, "tool": "terminal", "kind": "terminal", "summary": "go test ./..."})
		r.add("action.decided", map[string]any{"action_id": action, "call_id": call, "decision": "approved", "by": "policy", "rule": "allow_commands"})
		r.add("tool.progress", map[string]any{"call_id": call, "stream": "stdout", "text": "--- FAIL: TestX\n"})
		r.add("tool.result", map[string]any{"call_id": call, "tool": "terminal", "ok": turn%5 != 0, "content": "1\n2\n3", "presentation": views[turn%len(views)], "duration_ms": 120, "action_id": action})
	}
	r.add("agent.response", map[string]any{"text": "Done."})
	r.add("session.ended", map[string]any{"status": "completed", "turns": 1, "tokens": 1, "cost_usd": 0.1, "pending_actions": 0})
	return r
}

// The markup a hostile session carries in every string it controls.
const (
	xssScript = `<script>window.__xss=1</script>`
	xssImg    = `<img src=x onerror="window.__xss=1">`
	xssBreak  = `</script><script>window.__xss=1</script><!--`
)

// hostile is a session whose every string tries to become markup.
func hostile() *recording {
	bad := xssScript + xssImg + xssBreak
	r := newRecording("s-" + bad)
	r.info.Agent = bad
	r.add("session.started", map[string]any{"agent": bad, "model": bad, "workspace": bad, "config": bad, "task": "Task " + bad})
	r.add("llm.request", map[string]any{"turn": 1, "model": bad, "messages": 2})
	r.add("llm.usage", map[string]any{"turn": 1, "model": bad, "prompt_tokens": 10, "completion_tokens": 5, "cache_hit_tokens": 0, "cache_miss_tokens": 10, "cost_usd": 0.001})
	r.add("assistant.message", map[string]any{"turn": 1, "model": bad, "content": bad, "reasoning": bad, "finish_reason": bad})
	r.add("tool.call", map[string]any{"call_id": bad, "tool": bad, "arguments": map[string]any{"command": bad, bad: bad}})
	r.add("action.proposed", map[string]any{"action_id": bad, "call_id": bad, "tool": bad, "kind": bad, "summary": bad})
	r.add("action.decided", map[string]any{"action_id": bad, "call_id": bad, "decision": bad, "by": bad, "rule": bad})
	r.add("tool.progress", map[string]any{"call_id": bad, "stream": bad, "text": bad})
	r.add("tool.result", map[string]any{"call_id": bad, "tool": bad, "ok": false, "content": "tool output " + bad,
		"error": map[string]any{"kind": bad, "message": bad}, "presentation": map[string]any{"kind": "text", "text": "shown " + bad}})
	r.add("tool.result", map[string]any{"call_id": bad, "tool": bad, "ok": true, "content": bad, "presentation": map[string]any{"kind": "diff", "path": bad, "unified": "+" + bad}})
	r.add("tool.result", map[string]any{"call_id": bad, "tool": bad, "ok": true, "content": bad, "presentation": map[string]any{"kind": "search", "query": bad, "hits": []map[string]any{{"path": bad, "line": bad, "text": bad}}}})
	r.add("tool.result", map[string]any{"call_id": bad, "tool": bad, "ok": true, "content": bad, "presentation": map[string]any{"kind": bad, bad: bad}})
	r.add("artifact.decision", map[string]any{"title": bad, "options": []string{bad}, "chosen": bad, "rationale": bad})
	r.add("artifact.checklist", map[string]any{"title": bad, "items": []map[string]any{{"text": bad, "done": true}}})
	r.add(bad, map[string]any{bad: bad})
	r.add("error", map[string]any{"kind": bad, "message": bad})
	r.add("session.ended", map[string]any{"status": bad, "turns": 1, "tokens": 15, "cost_usd": 0.001, "pending_actions": []string{bad}})
	return r
}
