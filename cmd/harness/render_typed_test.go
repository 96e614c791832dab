package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness-agent/harness/core/session"
)

// An event the renderer cannot read as its core/event type is said, not
// shown as blanks, and the events after it render as usual.
func TestUndecodableEventIsSaid(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := newRenderer(&out, nil, false, display{width: 120, replay: true})
	for i, e := range []struct{ typ, data string }{
		{"tool.calls", `{"call_id":"c1"}`},
		{"toolloop.limit_reached", `{"limit":7}`},
		{"toolloop.limit_reached", `{"limit":"max_turns\u202e"}`},
	} {
		r.event(session.Event{Seq: int64(i + 1), Time: time.Unix(0, 0), Session: "s-1", Type: e.typ, Data: json.RawMessage(e.data)})
	}
	text := out.String()
	for _, want := range []string{
		`· not shown: event 1 (tool.calls): unknown event type "tool.calls"`,
		"· not shown: event 2 (toolloop.limit_reached): json: cannot unmarshal number",
		`■ limit reached: max_turns\u202e`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in:\n%s", want, text)
		}
	}
	if bad := interpreted(text); bad != "" {
		t.Errorf("%q reached the terminal:\n%s", bad, text)
	}
}

// sessions events prints each event's JSON on a line: encoding/json keeps
// bidirectional and zero-width characters raw, so the line escapes them,
// and the cut at max bytes never splits a character.
func TestSessionsEventsLineIsVisibleAndWhole(t *testing.T) {
	t.Parallel()
	data, _ := json.Marshal(map[string]string{"text": "ok \u202eevil\u200b " + strings.Repeat("é", 60)})
	line := compactJSON(data, 100)
	if bad := interpreted(line); bad != "" {
		t.Errorf("%q in %q", bad, line)
	}
	if !strings.Contains(line, `\u202eevil\u200b`) {
		t.Errorf("the hidden characters should show, escaped: %q", line)
	}
	if !utf8.ValidString(line) || strings.Contains(line, `\x`) || !strings.HasSuffix(line, "é…") {
		t.Errorf("the cut split a character: %q", line)
	}
}
