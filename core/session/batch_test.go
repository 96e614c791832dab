package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// AppendAll commits usage rows with the events, in the same transaction:
// both or neither.
func TestAppendAllCommitsUsageWithTheEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		u := Usage{Session: info.ID, Turn: 1, Model: "m", PromptTokens: 120, CompletionTokens: 30, CostUSD: 0.01}
		if _, err := s.AppendAll(ctx, info.ID, []Entry{{Type: "llm.usage", Data: map[string]any{"prompt_tokens": 120}}}, u); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendAll(ctx, info.ID, nil, u); err != nil { // usage alone
			t.Fatal(err)
		}
		tot, err := s.UsageTotals(ctx, info.ID)
		if err != nil || tot.PromptTokens != 240 || tot.CompletionTokens != 60 {
			t.Fatalf("usage totals %+v (%v), want two rows", tot, err)
		}
		bad := u
		bad.PromptTokens = -1
		if _, err := s.AppendAll(ctx, info.ID, []Entry{{Type: "llm.usage", Data: nil}}, bad); err == nil || !strings.Contains(err.Error(), "negative") {
			t.Fatalf("negative usage: %v", err)
		}
		other := u
		other.Session = "another"
		if _, err := s.AppendAll(ctx, info.ID, []Entry{{Type: "llm.usage", Data: nil}}, other); err == nil || !strings.Contains(err.Error(), "another") {
			t.Fatalf("usage of another session: %v", err)
		}
		if _, err := s.AppendAll(ctx, "no-such-session", nil, Usage{Session: "no-such-session"}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("usage of a missing session: %v, want ErrNotFound", err)
		}
		evs, err := s.Events(ctx, info.ID, 0)
		if err != nil || len(evs) != 1 {
			t.Fatalf("%d events (%v), want the one of the first group", len(evs), err)
		}
		if tot, _ := s.UsageTotals(ctx, info.ID); tot.PromptTokens != 240 {
			t.Fatalf("a failed group committed its usage: %+v", tot)
		}
	})
}

// Encoded data is stored as given; anything but an object is refused.
func TestEncodedDataIsStoredAsIs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	info := newSession(t, s)
	ev, err := s.Append(ctx, info.ID, "tool.result", Encoded(`{"content":"[redacted]"}`))
	if err != nil || string(ev.Data) != `{"content":"[redacted]"}` {
		t.Fatalf("Append of Encoded data: %s, %v", ev.Data, err)
	}
	if _, err := s.Append(ctx, info.ID, "tool.result", Encoded(`[1]`)); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Fatalf("Encoded array: %v", err)
	}
}

// referenceJSON is the envelope as json.Marshal renders it.
func referenceJSON(e Event) []byte {
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	b, _ := json.Marshal(struct {
		Seq     int64           `json:"seq"`
		Time    string          `json:"time"`
		Session string          `json:"session"`
		Type    string          `json:"type"`
		Data    json.RawMessage `json:"data"`
	}{e.Seq, e.Time.UTC().Format(time.RFC3339Nano), e.Session, e.Type, data})
	return b
}

// The envelope is byte for byte what json.Marshal writes for data that
// json.Marshal wrote (all the store holds).
func TestEventJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, e := range []Event{
		{Seq: 1, Time: time.Date(2026, 12, 1, 23, 0, 0, 123456789, time.FixedZone("x", 3600)), Session: "s-1", Type: "tool.result",
			Data: mustJSON(map[string]any{"content": "<a href=\"x\">&amp;</a>\n\u2028 é \x01"})},
		{Seq: 2, Session: `we"ird<&>`, Type: "tööl\\x"},
		{Seq: 1 << 40, Session: "s", Type: "t", Data: json.RawMessage(`{}`)},
	} {
		got, err := json.Marshal(e)
		if want := referenceJSON(e); err != nil || string(got) != string(want) {
			t.Errorf("json.Marshal(event)\n%s (%v)\nwant\n%s", got, err, want)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func FuzzEventJSON(f *testing.F) {
	f.Add(int64(3), "s-abc", "tool.result", "hello <world> & \"you\"\n")
	f.Fuzz(func(t *testing.T, seq int64, session, typ, content string) {
		e := Event{Seq: seq, Time: time.Unix(0, seq), Session: session, Type: typ, Data: mustJSON(map[string]string{"content": content})}
		if got, want := e.AppendJSON(nil), referenceJSON(e); string(got) != string(want) {
			t.Fatalf("AppendJSON\n%s\nwant\n%s", got, want)
		}
	})
}
