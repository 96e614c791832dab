package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/internal/testkit"
)

// sampleEvents is a session with one of every card.
var sampleEvents = []struct {
	typ  string
	data string
}{
	{"session.started", `{"agent":"coder","model":"flash","workspace":"/ws","task":"fix it"}`},
	{"llm.request", `{"turn":1,"model":"flash","prompt_tokens_est":1200,"shared_prefix_bytes":0}`},
	{"assistant.chunk", `{"block":0,"kind":"reasoning","delta":"Check the tests first."}`},
	{"assistant.chunk", `{"block":1,"kind":"text","delta":"Let me look "}`},
	{"assistant.chunk", `{"block":1,"kind":"text","delta":"at the code."}`},
	{"assistant.message", `{"content":"Let me look at the code.","tool_calls":[]}`},
	{"llm.usage", `{"prompt_tokens":1000,"completion_tokens":50,"cache_hit_tokens":768,"cache_miss_tokens":232,"cost_usd":0.0002}`},
	{"tool.call", `{"call_id":"c1","tool":"search_workspace","arguments":{"query":"TODO","glob":"*.go"}}`},
	{"tool.result", `{"call_id":"c1","tool":"search_workspace","ok":true,"presentation":{"kind":"search","query":"TODO","total":2,"hits":[{"path":"a.go","line":3,"text":"// TODO: one"},{"path":"b/c.go","line":10,"text":"\t// TODO: two"}]}}`},
	{"tool.call", `{"call_id":"c2","tool":"read_file","arguments":{"path":"a.go"}}`},
	{"tool.result", `{"call_id":"c2","tool":"read_file","ok":true,"presentation":{"kind":"file","path":"a.go","start_line":1,"end_line":12}}`},
	{"tool.call", `{"call_id":"c3","tool":"write_file","arguments":{"path":"a.go","content":"package a\n"}}`},
	{"tool.result", `{"call_id":"c3","tool":"write_file","ok":true,"presentation":{"kind":"diff","path":"a.go","unified":"--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n package a\n-// TODO: one\n+// done\n"}}`},
	{"tool.call", `{"call_id":"c4","tool":"terminal","arguments":{"command":"go test ./..."}}`},
	{"action.proposed", `{"action_id":"a-1","call_id":"c4","kind":"terminal","summary":"go test ./..."}`},
	{"action.decided", `{"action_id":"a-1","decision":"approved","by":"policy","rule":"allow_commands"}`},
	{"tool.result", `{"call_id":"c4","tool":"terminal","ok":true,"presentation":{"kind":"terminal","command":"go test ./...","exit_code":1,"output":"--- FAIL: TestA\n    a_test.go:12: got \"the quick brown fox jumps over the lazy dog\", want \"the quick brown fox jumped over the lazy dogs\"\nFAIL\n"}}`},
	{"tool.call", `{"call_id":"c5","tool":"terminal","arguments":{"command":"rm -rf /"}}`},
	{"action.decided", `{"action_id":"a-2","decision":"denied","by":"policy","rule":"deny_commands \"rm *\""}`},
	{"tool.result", `{"call_id":"c5","tool":"terminal","ok":false,"error":{"kind":"denied","message":"terminal (rm -rf /) was denied by policy"}}`},
	{"llm.retry", `{"attempt":1,"kind":"rate_limited","delay_ms":500}`},
	{"artifact.note", `{"title":"Tests fail","body":"TestA fails on main."}`},
	{"context.compacted", `{"tokens_before":90000,"tokens_after":20000,"dropped_messages":14,"summarizer":"model"}`},
	{"assistant.chunk", `{"block":0,"kind":"text","delta":"Done. The failing test compares the rendered card with a gol"}`},
	{"assistant.chunk", `{"block":0,"kind":"text","delta":"den file; I updated the expectation and reran the whole suite, which now passes on every package."}`},
	{"agent.response", `{"text":"Done."}`},
	{"session.ended", `{"status":"completed","turns":2,"tokens":1050,"cost_usd":0.0002}`},
}

func renderSample(t *testing.T, disp display) string {
	t.Helper()
	var out bytes.Buffer
	r := newRenderer(&out, nil, false, disp)
	for i, e := range sampleEvents {
		r.event(session.Event{Seq: int64(i + 1), Time: time.Unix(0, 0), Session: "s-1", Type: e.typ, Data: json.RawMessage(e.data)})
	}
	r.finishTurn(agent.Outcome{})
	r.closing("s-1", agent.Outcome{Status: agent.StatusCompleted}, agent.Totals{Turns: 2, Tokens: 1050, CostUSD: 0.0002})
	return out.String()
}

// checkGolden compares got with testdata/render/NAME.golden (-update
// rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", "render", name+".golden"), []byte(got))
}

// goldenDisplays are the screens the goldens cover: 60 and 120 columns,
// with and without colour.
var goldenDisplays = map[string]display{
	"plain-60": {width: 60}, "plain-120": {width: 120},
	"color-60": {width: 60, color: true}, "color-120": {width: 120, color: true},
}

func TestRenderedCardsGolden(t *testing.T) {
	t.Parallel()
	for name, disp := range goldenDisplays {
		checkGolden(t, "cards-"+name, renderSample(t, disp))
	}
}

func TestJSONModePrintsEventsOnlyOnStdout(t *testing.T) {
	t.Parallel()
	var human, jsonOut bytes.Buffer
	r := newRenderer(&human, &jsonOut, true, display{})
	ev := session.Event{Seq: 1, Time: time.Unix(0, 0).UTC(), Session: "s-1", Type: "assistant.chunk", Data: json.RawMessage(`{"block":0,"kind":"text","delta":"hi"}`)}
	r.event(ev)
	want, _ := json.Marshal(ev)
	if jsonOut.String() != string(want)+"\n" || human.Len() != 0 {
		t.Fatalf("json %q human %q", jsonOut.String(), human.String())
	}
}

// The closing line's cache figures cover the whole session: usage of a
// resumed session's earlier events (absorb) and usage seen in --json mode.
func TestClosingCountsAbsorbedAndJSONModeUsage(t *testing.T) {
	t.Parallel()
	var human, jsonOut bytes.Buffer
	r := newRenderer(&human, &jsonOut, true, display{})
	usage := func(seq int64, data string) session.Event {
		return session.Event{Seq: seq, Time: time.Unix(0, 0).UTC(), Session: "s-1", Type: "llm.usage", Data: json.RawMessage(data)}
	}
	r.absorb(usage(1, `{"prompt_tokens":100,"cache_hit_tokens":25,"cache_write_tokens":10}`))
	r.absorb(session.Event{Seq: 2, Time: time.Unix(0, 0).UTC(), Session: "s-1", Type: "assistant.chunk", Data: json.RawMessage(`{"block":0,"kind":"text","delta":"hi"}`)})
	r.event(usage(3, `{"prompt_tokens":100,"cache_hit_tokens":75,"cache_write_tokens":30}`))
	r.closing("s-1", agent.Outcome{Status: agent.StatusCompleted}, agent.Totals{})
	if line := human.String(); !strings.Contains(line, "(50% cache hits, 20% cache writes)") {
		t.Fatalf("closing line %q, want the cache figures of both usage events", line)
	}
}

// A terminal card shows the last lines of the output and says what it
// leaves out, including what the terminal cut before the model saw it, so
// the card and the model's view agree.
func TestTerminalCardSaysWhatItLeavesOut(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprint(i))
		if i == 3 {
			lines = append(lines, "[… 1234567 bytes (200000 lines) omitted …]")
		}
	}
	res, _ := json.Marshal(map[string]any{"call_id": "c1", "tool": "terminal", "ok": true,
		"presentation": map[string]any{"kind": "terminal", "command": "seq 1 200000", "exit_code": 0, "output": strings.Join(lines, "\n") + "\n"}})
	var out bytes.Buffer
	r := newRenderer(&out, nil, false, display{width: 120})
	r.event(session.Event{Seq: 1, Time: time.Unix(0, 0), Session: "s-1", Type: "tool.call", Data: json.RawMessage(`{"call_id":"c1","tool":"terminal","arguments":{"command":"seq 1 200000"}}`)})
	r.event(session.Event{Seq: 2, Time: time.Unix(0, 0), Session: "s-1", Type: "tool.result", Data: res})
	text := out.String()
	if !strings.Contains(text, "… 19 lines before these not shown here; the model got them, except 1234567 bytes (200000 lines) omitted") || !strings.Contains(text, "30") {
		t.Errorf("card:\n%s", text)
	}
}
