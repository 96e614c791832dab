package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

// summaryModel answers the summarizer's request with text, or fails with
// err; it counts the requests it got.
type summaryModel struct {
	text  string
	err   error
	calls *int
}

func (m summaryModel) Complete(ctx context.Context, req llm.Request, _ llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	*m.calls++
	if m.err != nil {
		return llm.AssistantMessage{}, llm.Binding{}, m.err
	}
	return llm.AssistantMessage{Text: m.text, FinishReason: "stop"}, req.Bindings[0], nil
}

// compacted is the context.compacted event recorded, if any.
func compacted(t *testing.T, rec *fakeRecorder) (event.ContextCompacted, bool) {
	t.Helper()
	for _, e := range rec.events {
		if rest, ok := strings.CutPrefix(e, event.TypeContextCompacted+" "); ok {
			var d event.ContextCompacted
			if err := json.Unmarshal([]byte(rest), &d); err != nil {
				t.Fatal(err)
			}
			return d, true
		}
	}
	return event.ContextCompacted{}, false
}

// TestCompactionTriggers: the conversation is compacted only when its
// estimate exceeds threshold × context window (at the limit it is not),
// with the summarizer's answer when it gives one and the deterministic
// extract when it fails, answers nothing or runs out of time.
func TestCompactionTriggers(t *testing.T) {
	t.Parallel()
	msgs := longHistory()
	e := newEstimator()
	tokens := e.tokens(len(promptBytes(msgs, nil)))
	// windowFor is the context window whose limit, at threshold 0.5, is limit.
	windowFor := func(limit int64) int64 { return 2 * limit }
	tests := []struct {
		name      string
		window    int64
		threshold float64
		model     *summaryModel // nil: no summarizer model
		hung      bool          // the summarizer never answers
		keep      int
		compact   bool   // a summary replaces the old turns
		by        string // who wrote it
		summary   string // in the summary message
		requests  int    // to the summarizer
	}{
		{name: "below the threshold", window: windowFor(tokens + 1), threshold: 0.5, model: &summaryModel{text: "s"}},
		{name: "at the threshold", window: windowFor(tokens), threshold: 0.5, model: &summaryModel{text: "s"}},
		{name: "above the threshold", window: windowFor(tokens - 1), threshold: 0.5, model: &summaryModel{text: "what happened"},
			compact: true, by: "model", summary: "what happened", requests: 1},
		{name: "default threshold 0.8, below", window: tokens*10/8 + 2, model: &summaryModel{text: "s"}},
		{name: "default threshold 0.8, above", window: tokens * 10 / 8 * 9 / 10, model: &summaryModel{text: "s"},
			compact: true, by: "model", summary: "s", requests: 1},
		{name: "unknown window never compacts", window: 0, threshold: 0.5, model: &summaryModel{text: "s"}},
		{name: "summarizer fails", window: windowFor(tokens / 2), threshold: 0.5, model: &summaryModel{err: errors.New("provider_unavailable")},
			compact: true, by: "fallback", summary: "called read_file", requests: 1},
		{name: "summarizer answers nothing", window: windowFor(tokens / 2), threshold: 0.5, model: &summaryModel{text: "  \n"},
			compact: true, by: "fallback", summary: "called read_file", requests: 1},
		{name: "summarizer times out", window: windowFor(tokens / 2), threshold: 0.5, hung: true,
			compact: true, by: "fallback", summary: "called read_file"},
		{name: "no summarizer model", window: windowFor(tokens / 2), threshold: 0.5,
			compact: true, by: "fallback", summary: "called read_file"},
		{name: "nothing older than keep_recent", window: windowFor(tokens / 2), threshold: 0.5, model: &summaryModel{text: "s"}, keep: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			keep := tt.keep
			if keep == 0 {
				keep = 2
			}
			c := &Compactor{ContextWindow: tt.window, Threshold: tt.threshold, KeepRecent: keep}
			calls := 0
			switch {
			case tt.model != nil:
				m := *tt.model
				m.calls = &calls
				c.Model, c.Bindings = m, []llm.Binding{{Name: "summarizer"}}
			case tt.hung:
				c.Model, c.Bindings, c.Timeout = hungModel{deadline: make(chan bool, 1)}, []llm.Binding{{Name: "summarizer"}}, 1
			}
			rec := &fakeRecorder{}
			est := newEstimator()
			out, stop := c.Maybe(context.Background(), msgs, rec, &est, nil)
			if stop {
				t.Fatal("one compaction stopped the run")
			}
			ev, recorded := compacted(t, rec)
			if recorded != tt.compact {
				t.Fatalf("context.compacted recorded: %v, want %v (estimate %d tokens, window %d)", recorded, tt.compact, tokens, tt.window)
			}
			if calls != tt.requests {
				t.Errorf("%d requests to the summarizer, want %d", calls, tt.requests)
			}
			if !tt.compact {
				if len(out) != len(msgs) {
					t.Errorf("%d messages after no compaction, want all %d", len(out), len(msgs))
				}
				return
			}
			// The pinned head, one summary, the newest keep turns (a call and its result each).
			if len(out) != 2+1+2*keep || out[0].Content != "sys" || out[1].Content != "task" {
				t.Fatalf("compacted to %d messages starting %q, %q", len(out), out[0].Content, out[1].Content)
			}
			if !strings.Contains(out[2].Content, tt.summary) || out[2].Role != sdk.RoleUser {
				t.Errorf("summary message %q, want one with %q", out[2].Content, tt.summary)
			}
			if ev.Summarizer != tt.by || ev.TokensBefore != tokens || ev.TokensAfter >= tokens || ev.DroppedMessages != len(msgs)-2-2*keep {
				t.Errorf("context.compacted %+v, want by %s from %d tokens, dropping %d", ev, tt.by, tokens, len(msgs)-2-2*keep)
			}
		})
	}
}

// TestCompactionThatCannotHelpStopsTheLoop: when compacting leaves the
// context above the threshold turn after turn, the loop ends with the
// context limit instead of sending requests the model cannot take.
func TestCompactionThatCannotHelpStopsTheLoop(t *testing.T) {
	t.Parallel()
	huge := []sdk.Message{{Role: sdk.RoleSystem, Content: strings.Repeat("s", 40000)}, {Role: sdk.RoleUser, Content: "go"}}
	// The provider reports what the estimate says (4 bytes a token), so
	// calibrating keeps it above the threshold.
	model := &replyModel{replies: []llm.AssistantMessage{callTurn(10000, "t")}}
	rec := &fakeRecorder{}
	cfg := Config{Session: "s", Compactor: &Compactor{ContextWindow: 1000, Threshold: 0.5, MaxIneffective: 2}}
	_, out := New(cfg, model, funcTools{okTool}, rec, nil).Run(context.Background(), huge)
	if out.Status != StatusLimit || out.Limit != LimitContext {
		t.Fatalf("outcome %+v, want the context limit", out)
	}
	if model.calls != 1 {
		t.Errorf("%d model requests, want 1: the second compaction that could not help stops the run", model.calls)
	}
	if got := limitOf(rec); got != LimitContext {
		t.Errorf("toolloop.limit_reached says %q, want %q", got, LimitContext)
	}
}
