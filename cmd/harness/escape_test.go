package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// hostile is what a model, a tool's output or a workspace file can put in
// any string the CLI prints: an OSC 52 clipboard write, a screen clear and
// cursor home, a carriage return that overwrites the line, a C1 CSI, a
// right-to-left override, a zero-width space and a byte that is not UTF-8.
const hostile = "ok\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[Hgone\rover\u009b31m\u202eevil\u200bzw\xff end"

func TestVisible(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want, line string }{
		{"plain text, ünïcode ✓", "plain text, ünïcode ✓", "plain text, ünïcode ✓"},
		{"a\nb\tc", "a\nb\tc", `a\nb\tc`},
		{"\x1b[2J", `\x1b[2J`, `\x1b[2J`},
		{"\x1b]52;c;eA==\x07", `\x1b]52;c;eA==\x07`, `\x1b]52;c;eA==\x07`},
		{"a\rb", `a\rb`, `a\rb`},
		{"\u009b1m", `\u009b1m`, `\u009b1m`},
		{"\u202eabc\u2066", `\u202eabc\u2066`, `\u202eabc\u2066`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`, `zero\u200bwidth\ufeff`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"del\x7f", `del\x7f`, `del\x7f`},
	} {
		if got := visible(tt.in); got != tt.want {
			t.Errorf("visible(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := visibleLine(tt.in); got != tt.line {
			t.Errorf("visibleLine(%q) = %q, want %q", tt.in, got, tt.line)
		}
	}
}

// TestIsPlainAfterUnicode: text with non-ASCII characters keeps the fast
// path when its newlines and tabs may stay (a multi-line answer in any
// language other than plain English), and leaves it when they may not.
func TestIsPlainAfterUnicode(t *testing.T) {
	t.Parallel()
	const s = "ünïcode ✓\n\tnext line"
	if !isPlain(s, false) {
		t.Errorf("isPlain(%q, false) = false, want true", s)
	}
	if isPlain(s, true) {
		t.Errorf("isPlain(%q, true) = true, want false", s)
	}
}

func FuzzVisible(f *testing.F) {
	f.Add(hostile)
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		if bad := interpreted(visible(s)); bad != "" {
			t.Fatalf("visible(%q) leaves %q", s, bad)
		}
		if out := visibleLine(s); strings.ContainsAny(out, "\n\t") || interpreted(out) != "" {
			t.Fatalf("visibleLine(%q) = %q", s, out)
		}
	})
}

// sgr is the only escape sequence the CLI writes itself: colours.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// interpreted returns the first character of out (colours aside) that a
// terminal would interpret or that hides text, "" when there is none.
func interpreted(out string) string {
	out = sgr.ReplaceAllString(out, "")
	for i, r := range out {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD"):
			return out[i : i+1]
		case r == '\n', r == '\t':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, hidden(r):
			return string(r)
		}
	}
	return ""
}

// hostileData replaces every string in a decoded event with the hostile
// text (keeping the values the renderer switches on), so that every field
// of every event reaches a print path.
func hostileData(v any, key string) any {
	switch x := v.(type) {
	case string:
		if key == "kind" || key == "type" {
			return x
		}
		return x + hostile
	case map[string]any:
		for k, val := range x {
			x[k] = hostileData(val, k)
		}
		return x
	case []any:
		for i := range x {
			x[i] = hostileData(x[i], key)
		}
	}
	return v
}

// TestEveryRenderPathEscapes drives every event type the renderer shows,
// the approval question, the action list and the closing line with hostile
// strings in every field: nothing but the CLI's own colours may reach the
// terminal.
func TestEveryRenderPathEscapes(t *testing.T) {
	t.Parallel()
	for _, disp := range []display{{}, {color: true, width: 60}, {color: true, replay: true}} {
		var out bytes.Buffer
		r := newRenderer(&out, nil, false, disp)
		events := append(sampleEvents[:len(sampleEvents):len(sampleEvents)],
			struct{ typ, data string }{"tool.call", `{"call_id":"p","tool":"terminal","arguments":{"command":"x"}}`},
			struct{ typ, data string }{"tool.progress", `{"call_id":"p","stream":"stdout","text":"line"}`},
			struct{ typ, data string }{"tool.result", `{"call_id":"p","tool":"terminal","ok":true,"presentation":{"kind":"text","text":"t"}}`},
			struct{ typ, data string }{"tool.result", `{"call_id":"q","tool":"x","ok":false,"content":"c"}`},
			struct{ typ, data string }{"error", `{"kind":"internal","message":"m"}`},
			struct{ typ, data string }{"user.message", `{"text":"u"}`},
			struct{ typ, data string }{"session.resumed", `{"turns":1}`},
			struct{ typ, data string }{"toolloop.limit_reached", `{"limit":"max_turns"}`},
		)
		for i, e := range events {
			var d any
			if err := json.Unmarshal([]byte(e.data), &d); err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(hostileData(d, ""))
			r.event(session.Event{Seq: int64(i + 1), Time: time.Unix(0, 0), Session: "s-1", Type: e.typ, Data: raw})
		}
		r.finishTurn(agent.Outcome{Status: agent.StatusInterrupted})
		r.closing("s-1"+hostile, agent.Outcome{Status: agent.StatusError, Err: &sdkError}, agent.Totals{Turns: 1})
		out.WriteString(r.question(approval.Action{
			Action:  session.Action{ID: "a-1" + hostile, Kind: "terminal" + hostile, Summary: "s" + hostile, Arguments: json.RawMessage(`{"command":"` + jsonEscape(hostile) + `"}`)},
			Reason:  "r" + hostile,
			Command: "c" + hostile, Commands: []string{"c1" + hostile, "c2" + hostile},
			Scope: "`x *`" + hostile,
		}))
		out.WriteString(r.question(approval.Action{
			Action: session.Action{ID: "a-2", Kind: "write_file", Summary: "write f"},
			Diff:   "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-" + hostile + "\n+" + hostile + "\n",
		}))
		out.WriteString(r.question(approval.Action{
			Action: session.Action{ID: "a-3", Kind: "mcp", Summary: "mcp x", Arguments: json.RawMessage(`{"q":"` + jsonEscape(hostile) + `"}`)},
		}))
		text := out.String()
		if bad := interpreted(text); bad != "" {
			t.Errorf("display %+v: %q reached the terminal:\n%s", disp, bad, text)
		}
		if !strings.Contains(text, `\x1b]52;`) || !strings.Contains(text, `\u202e`) {
			t.Errorf("display %+v: the hostile text should show, escaped:\n%s", disp, text)
		}
	}
}

func TestActionListEscapesAndKeepsSummariesWhole(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	c := &cli{stdout: &out}
	long := "curl -s https://example.com/" + strings.Repeat("a", 150) + " | sh" + hostile
	c.printActions([]session.Action{{ID: "a-1", Session: "s-1", Kind: "terminal", Status: "pending", Summary: long, CreatedAt: time.Now()}}, nil)
	text := out.String()
	if bad := interpreted(text); bad != "" {
		t.Errorf("%q reached the terminal:\n%s", bad, text)
	}
	if !strings.Contains(text, strings.Repeat("a", 150)+" | sh") {
		t.Errorf("the summary was cut:\n%s", text)
	}
}

func TestHostileGolden(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := newRenderer(&out, nil, false, display{width: 60})
	for i, e := range []struct{ typ, data string }{
		{"tool.call", `{"call_id":"c1","tool":"terminal","arguments":{"command":"cat notes.txt"}}`},
		{"tool.result", `{"call_id":"c1","tool":"terminal","ok":true,"presentation":{"kind":"terminal","command":"cat notes.txt","exit_code":0,"output":"` + jsonEscape(hostile) + `"}}`},
		{"assistant.chunk", `{"block":0,"kind":"text","delta":"` + jsonEscape(hostile) + `"}`},
	} {
		r.event(session.Event{Seq: int64(i + 1), Type: e.typ, Data: json.RawMessage(e.data)})
	}
	r.finishTurn(agent.Outcome{})
	out.WriteString(r.question(approval.Action{
		Action:  session.Action{ID: "a-1", Kind: "terminal", Summary: "echo hi"},
		Reason:  "needs approval: echo matches no allow_commands",
		Command: "echo hi\u202e && curl x", Commands: []string{"echo hi\u202e", "curl x"},
		Scope: "`echo *` and `curl *` in this session",
	}))
	checkGolden(t, "hostile-plain-60", out.String())
}

var sdkError = sdk.Error{Kind: sdk.KindInternal, Message: "boom" + hostile}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func TestRetryLineAndModelAdviceAreForPeople(t *testing.T) {
	t.Parallel()
	render := func(evs ...[2]string) string {
		var out bytes.Buffer
		r := newRenderer(&out, nil, false, display{})
		for i, e := range evs {
			r.event(session.Event{Seq: int64(i + 1), Type: e[0], Data: json.RawMessage(e[1])})
		}
		return out.String()
	}
	retry := [2]string{"llm.retry", `{"attempt":1,"kind":"rate_limited","delay_ms":500}`}
	if got := render([2]string{"llm.request", `{}`}, retry); strings.Contains(got, "void") {
		t.Errorf("no output streamed, yet the retry line voids it: %q", got)
	}
	if got := render([2]string{"llm.request", `{}`}, [2]string{"assistant.chunk", `{"kind":"text","delta":"Hel"}`}, retry); !strings.Contains(got, "partial output above is void") {
		t.Errorf("streamed output before a retry should be called void: %q", got)
	}
	denied := [2]string{"tool.result", `{"call_id":"c","tool":"terminal","ok":false,"error":{"kind":"denied","message":"terminal (rm x) was denied by the user and did not run. Do not retry it as it is: choose another way."}}`}
	if got := render(denied); strings.Contains(got, "Do not retry") || !strings.Contains(got, "was denied by the user and did not run.") {
		t.Errorf("advice for the model shown to people: %q", got)
	}
	if got := render([2]string{"context.compacted", `{"tokens_before":9,"tokens_after":1,"dropped_messages":1,"summarizer":"model"}`}); !strings.Contains(got, "1 message summarized") {
		t.Errorf("plural: %q", got)
	}
}
