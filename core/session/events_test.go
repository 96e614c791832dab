package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
)

func TestAppendRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		type toolCall struct {
			CallID    string          `json:"call_id"`
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		}
		tests := []struct {
			typ  string
			data any
			want string
		}{
			{"session.started", map[string]string{"agent": "coder", "model": "flash"}, `{"agent":"coder","model":"flash"}`},
			{"tool.call", toolCall{"c1", "terminal", json.RawMessage(`{ "command" : "ls" }`)}, `{"call_id":"c1","tool":"terminal","arguments":{"command":"ls"}}`},
			{"agent.response", json.RawMessage(`{"text": "done\n"}`), `{"text":"done\n"}`},
			{"llm.usage", (*toolCall)(nil), `{}`},
			{"session.ended", nil, `{}`},
			{"assistant.chunk", map[string]any{"delta": "ünïcødé ✓ \u2028"}, `{"delta":"ünïcødé ✓ \u2028"}`},
		}
		before := time.Now().Add(-time.Second)
		for i, tt := range tests {
			ev, err := s.Append(ctx, info.ID, tt.typ, tt.data)
			if err != nil {
				t.Fatalf("Append(%s): %v", tt.typ, err)
			}
			if ev.Seq != int64(i+1) || ev.Session != info.ID || ev.Type != tt.typ || string(ev.Data) != tt.want {
				t.Errorf("Append(%s) = %+v (data %s); want seq %d data %s", tt.typ, ev, ev.Data, i+1, tt.want)
			}
			if ev.Time.Before(before) || ev.Time.Location() != time.UTC {
				t.Errorf("Append(%s) time %v", tt.typ, ev.Time)
			}
		}

		all, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != len(tests) {
			t.Fatalf("Events returned %d, want %d", len(all), len(tests))
		}
		for i, ev := range all {
			if ev.Seq != int64(i+1) || ev.Type != tests[i].typ || string(ev.Data) != tests[i].want || ev.Session != info.ID {
				t.Errorf("event %d = %+v (data %s)", i, ev, ev.Data)
			}
			if i > 0 && ev.Time.Before(all[i-1].Time) {
				t.Errorf("event %d is older than event %d", i+1, i)
			}
		}

		tail, err := s.Events(ctx, info.ID, 4)
		if err != nil || len(tail) != 2 || tail[0].Seq != 5 {
			t.Errorf("Events(after 4) = %v, %v; want seqs 5, 6", tail, err)
		}
		none, err := s.Events(ctx, info.ID, 6)
		if err != nil || len(none) != 0 {
			t.Errorf("Events(after last) = %v, %v; want none", none, err)
		}

		// Seqs are per session.
		other := newSession(t, s)
		ev, err := s.Append(ctx, other.ID, "session.started", nil)
		if err != nil || ev.Seq != 1 {
			t.Errorf("first event of another session: seq %d, %v", ev.Seq, err)
		}
	})
}

func TestAppendErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		tests := []struct {
			name, session, typ string
			data               any
			notFound           bool
			want               string
		}{
			{"unknown session", "s-nope", "x", nil, true, "append x event to session s-nope: session not found"},
			{"empty type", info.ID, "", nil, false, "empty event type"},
			{"array data", info.ID, "x", []int{1}, false, "must be a JSON object, not [1]"},
			{"string data", info.ID, "x", "hello", false, `must be a JSON object, not "hello"`},
			{"bytes data", info.ID, "x", []byte("{}"), false, "must be a JSON object"},
			{"invalid raw JSON", info.ID, "x", json.RawMessage(`{"a":`), false, "encode event data"},
			{"unencodable", info.ID, "x", map[string]float64{"x": math.NaN()}, false, "encode event data"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.Append(ctx, tt.session, tt.typ, tt.data)
				if err == nil {
					t.Fatal("no error")
				}
				if errors.Is(err, ErrNotFound) != tt.notFound || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), s.Name()) {
					t.Errorf("error = %v; want %q, the store path, not-found %v", err, tt.want, tt.notFound)
				}
			})
		}
		// Failed appends use no seq.
		ev, err := s.Append(ctx, info.ID, "x", nil)
		if err != nil || ev.Seq != 1 {
			t.Errorf("append after failures: seq %d, %v; want 1", ev.Seq, err)
		}
		if _, err := s.Events(ctx, "s-nope", 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Events of an unknown session: %v, want ErrNotFound", err)
		}
	})
}

func TestEventJSONGolden(t *testing.T) {
	t.Parallel()
	events := []Event{
		{
			Seq: 1, Time: time.Date(2026, 11, 29, 19, 19, 15, 0, time.UTC),
			Session: "s-20261129-191915-ab12cd", Type: "session.started",
			Data: json.RawMessage(`{"agent":"coder","model":"flash","workspace":"/home/u/proj"}`),
		},
		{
			// Another zone is rendered in UTC, with nanoseconds when there are some.
			Seq: 42, Time: time.Date(2026, 11, 29, 20, 19, 15, 123456789, time.FixedZone("CET", 3600)),
			Session: "s-20261129-191915-ab12cd", Type: "tool.call",
			Data: json.RawMessage(`{"call_id":"c1","tool":"terminal","arguments":{"command":"go test ./..."}}`),
		},
		{Seq: 43, Time: time.Date(2026, 11, 29, 19, 19, 16, 500000000, time.UTC), Session: "s-20261129-191915-ab12cd", Type: "session.ended"},
	}
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false)
	for _, ev := range events {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	golden := filepath.Join("testdata", "events.golden.jsonl")
	testkit.Golden(t, golden, got.Bytes())
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}

	// The envelope reads back into an Event.
	var back Event
	line, _, _ := bytes.Cut(want, []byte("\n"))
	if err := json.Unmarshal(line, &back); err != nil {
		t.Fatal(err)
	}
	if back.Seq != 1 || !back.Time.Equal(events[0].Time) || back.Session != events[0].Session ||
		back.Type != events[0].Type || string(back.Data) != string(events[0].Data) {
		t.Errorf("round trip = %+v", back)
	}
}

func TestStoredEventJSON(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		ev, err := s.Append(ctx, info.ID, "agent.response", map[string]string{"text": "hi"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"seq":1,"time":"` + ev.Time.Format(time.RFC3339Nano) + `","session":"` + info.ID +
			`","type":"agent.response","data":{"text":"hi"}}`
		if string(b) != want {
			t.Errorf("json = %s\nwant   %s", b, want)
		}
		if _, err := time.Parse(time.RFC3339, ev.Time.Format(time.RFC3339Nano)); err != nil {
			t.Errorf("time is not RFC 3339: %v", err)
		}
	})
}
