package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/internal/testkit"
)

// A deferred event is neither stored nor shown until the next commit,
// which stores it before that commit's own events, in one transaction; a
// commit that fails shows nothing and stores nothing.
func TestStoreRecorderDefers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := session.Open(filepath.Join(t.TempDir(), session.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.CreateSession(ctx, session.SessionInfo{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	rec := SessionRecorder(s, info.ID)
	rec.Sink = func(ev session.Event) { shown = append(shown, fmt.Sprint(ev.Seq, " ", ev.Type)) }
	stored := func() int {
		evs, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(evs)
	}

	rec.Defer(ctx, event.ToolResult{CallID: "c1", OK: true})
	if err := rec.RecordUsage(ctx, session.Usage{Session: info.ID, Turn: 1, Model: "m", PromptTokens: 7}); err != nil {
		t.Fatal(err)
	}
	if n := stored(); n != 0 || len(shown) != 0 {
		t.Fatalf("a deferred event was stored (%d) or shown (%v) before a commit", n, shown)
	}
	if err := rec.Record(ctx, event.ToolCall{CallID: "c2"}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(shown) != "[1 tool.result 2 tool.call]" || stored() != 2 {
		t.Fatalf("shown %v, %d stored; want the deferred result first, then the call", shown, stored())
	}
	if u, err := s.UsageTotals(ctx, info.ID); err != nil || u.PromptTokens != 7 {
		t.Fatalf("usage %+v (%v): the deferred usage row was not committed", u, err)
	}

	rec.Defer(ctx, event.ToolResult{CallID: "c2", OK: true})
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rec.Flush(ctx); err != nil || len(shown) != 3 || stored() != 3 {
		t.Fatalf("after Flush: shown %v, %d stored (%v)", shown, stored(), err)
	}

	rec.Defer(ctx, event.ToolResult{CallID: "c3", OK: true})
	s.Close()
	if err := rec.Record(ctx, event.ToolCall{CallID: "c4"}); err == nil {
		t.Fatal("a commit to a closed store succeeded")
	}
	if len(shown) != 3 {
		t.Fatalf("events of a failed commit were shown: %v", shown[3:])
	}
}

// openRecorder returns a recorder on a new session of a new store, a
// function returning what is stored (types and call ids, in sequence
// order) and one returning what was shown, in order.
func openRecorder(t *testing.T) (*StoreRecorder, *session.Store, func() []string, func() []string) {
	t.Helper()
	ctx := context.Background()
	s, err := session.Open(filepath.Join(t.TempDir(), session.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	info, err := s.CreateSession(ctx, session.SessionInfo{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var shown []string
	rec := SessionRecorder(s, info.ID)
	rec.Sink = func(ev session.Event) {
		mu.Lock()
		defer mu.Unlock()
		shown = append(shown, describe(ev))
	}
	stored := func() []string {
		evs, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Error(err)
		}
		var out []string
		for _, ev := range evs {
			out = append(out, describe(ev))
		}
		return out
	}
	return rec, s, stored, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(shown)
	}
}

func describe(ev session.Event) string {
	var d struct {
		CallID string `json:"call_id"`
	}
	_ = json.Unmarshal(ev.Data, &d)
	return ev.Type + " " + d.CallID
}

// A deferred event is committed, and then shown, in the background once
// Background is called, without a later Record; Flush waits for it and
// leaves no commit running.
func TestStoreRecorderCommitsInBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, _, stored, shown := openRecorder(t)
	rec.Defer(ctx, event.ToolResult{CallID: "c1", OK: true})
	rec.Background(ctx)
	testkit.WaitFor(t, func() bool { return len(shown()) == 1 }, "the deferred event to be shown")
	if got := stored(); !slices.Equal(got, shown()) {
		t.Fatalf("stored %v, shown %v", got, shown())
	}
	for i := range 50 {
		rec.Defer(ctx, event.ToolResult{CallID: fmt.Sprint("d", i), OK: true})
		rec.Background(ctx)
	}
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	busy, pending := rec.busy, len(rec.pending)
	rec.mu.Unlock()
	if busy || pending != 0 {
		t.Fatalf("after Flush: a commit is running (%v) or %d events are pending", busy, pending)
	}
	if got := shown(); len(got) != 51 || !slices.Equal(got, stored()) {
		t.Fatalf("after Flush: shown %v, stored %v", got, stored())
	}
}

// Events deferred and recorded from several goroutines at once are stored
// and shown in one order, each goroutine's in the order it gave them.
func TestStoreRecorderKeepsOrderUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, _, stored, shown := openRecorder(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 20 {
				id := fmt.Sprintf("g%d-%02d", g, i)
				if i%3 == 2 {
					if err := rec.Record(ctx, event.ToolCall{CallID: id}); err != nil {
						t.Error(err)
					}
					continue
				}
				rec.Defer(ctx, event.ToolResult{CallID: id, OK: true})
				rec.Background(ctx)
			}
		})
	}
	wg.Wait()
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got := stored()
	if len(got) != 80 || !slices.Equal(got, shown()) {
		t.Fatalf("%d stored, shown in another order or not all:\nstored %v\nshown %v", len(got), got, shown())
	}
	last := map[string]string{}
	for _, ev := range got {
		id := ev[strings.Index(ev, " ")+1:]
		g := id[:strings.Index(id, "-")]
		if id <= last[g] {
			t.Fatalf("%s stored after %s", id, last[g])
		}
		last[g] = id
	}
}

// A background commit that fails stores and shows nothing of its events
// nor of those deferred after them; the next Record returns its failure
// (and commits nothing of its own), or Failed does, once.
func TestStoreRecorderBackgroundFailureIsKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, next := range []string{"Record", "Flush", "Failed"} {
		t.Run(next, func(t *testing.T) {
			t.Parallel()
			rec, s, _, shown := openRecorder(t)
			if err := rec.Record(ctx, event.ToolCall{CallID: "c1"}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			rec.Defer(ctx, event.ToolResult{CallID: "c1", OK: true})
			rec.Background(ctx)
			var err error
			switch next {
			case "Record":
				err = rec.Record(ctx, event.ToolCall{CallID: "c2"})
			case "Flush":
				err = rec.Flush(ctx)
			case "Failed":
				testkit.WaitFor(t, func() bool { err = rec.Failed(); return err != nil }, "the background failure")
			}
			if err == nil {
				t.Fatal("the failed background commit was not reported")
			}
			if err := rec.Failed(); err != nil {
				t.Fatalf("the failure was reported twice: %v", err)
			}
			if got := shown(); !slices.Equal(got, []string{"tool.call c1"}) {
				t.Fatalf("shown %v: events of a failed commit were shown", got)
			}
			rec.mu.Lock()
			pending := len(rec.pending)
			rec.mu.Unlock()
			if pending != 0 {
				t.Fatalf("%d events of the failed group are still pending", pending)
			}
		})
	}
}

// An attempt's usage row is committed with the event queued after it, in
// the background too; a row whose event is not queued yet waits for it.
func TestStoreRecorderUsageGoesWithItsEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, s, _, shown := openRecorder(t)
	usage := func() int64 {
		u, err := s.UsageTotals(ctx, rec.Session)
		if err != nil {
			t.Fatal(err)
		}
		return u.PromptTokens
	}
	rec.Defer(ctx, event.AssistantChunk{Delta: "a"})
	if err := rec.RecordUsage(ctx, session.Usage{Session: rec.Session, Turn: 1, Model: "m", PromptTokens: 7}); err != nil {
		t.Fatal(err)
	}
	rec.Background(ctx)
	testkit.WaitFor(t, func() bool { return len(shown()) == 1 }, "the chunk to be shown")
	if n := usage(); n != 0 {
		t.Fatalf("the usage row (%d tokens) was committed before its event", n)
	}
	rec.Defer(ctx, event.LLMUsage{PromptTokens: 7})
	rec.Background(ctx)
	testkit.WaitFor(t, func() bool { return len(shown()) == 2 }, "llm.usage to be shown")
	if n := usage(); n != 7 {
		t.Fatalf("usage %d tokens once llm.usage is committed, want 7", n)
	}
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// Queued events wait for the caller's next commit: no background commit
// takes them, nor what is deferred after them.
func TestStoreRecorderQueueWaitsForTheCaller(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, _, stored, shown := openRecorder(t)
	rec.Queue(ctx, event.AssistantMessage{Content: "m"})
	rec.Defer(ctx, event.ToolResult{CallID: "c0", OK: true})
	assertHeld(t, rec, stored)
	if err := rec.Record(ctx, event.ToolCall{CallID: "c1"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"assistant.message ", "tool.result c0", "tool.call c1"}
	if got := stored(); !slices.Equal(got, want) || !slices.Equal(shown(), want) {
		t.Fatalf("stored %v, shown %v, want %v", got, shown(), want)
	}
}

// assertHeld fails unless Background starts no commit of what rec holds
// and nothing is stored.
func assertHeld(t *testing.T, rec *StoreRecorder, stored func() []string) {
	t.Helper()
	rec.Background(context.Background())
	rec.mu.Lock()
	busy := rec.busy
	rec.mu.Unlock()
	if busy || len(stored()) != 0 {
		t.Fatalf("a background commit started (%v) or stored %v", busy, stored())
	}
}

// Release lets a Queue hold go: what was queued and deferred is committed
// in the background, in one transaction, without a later Record.
func TestStoreRecorderReleaseCommitsTheQueued(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, _, stored, shown := openRecorder(t)
	rec.Queue(ctx, event.AssistantMessage{Content: "m"})
	rec.Defer(ctx, event.ToolCall{CallID: "c1"})
	rec.Release(ctx)
	want := []string{"assistant.message ", "tool.call c1"}
	testkit.WaitFor(t, func() bool { return len(shown()) == len(want) }, "the released events shown")
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := stored(); !slices.Equal(got, want) || !slices.Equal(shown(), want) {
		t.Fatalf("stored %v, shown %v, want %v", got, shown(), want)
	}
}

// ReleaseAfter lets a Queue hold go once its delay is up, unless Release
// or a caller's commit comes first: until then no background commit takes
// what was queued and deferred, so the work done meanwhile (a quiet read)
// runs with no commit competing with it and its outcome joins the group.
func TestStoreRecorderReleaseAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	group := []string{"assistant.message ", "tool.call c1"}
	result := event.ToolResult{CallID: "c1", OK: true}
	for _, tc := range []struct {
		name  string
		delay time.Duration
		// act is what comes before the delay is up; nil: nothing.
		act  func(rec *StoreRecorder) error
		want []string
	}{
		{"the delay is up", time.Millisecond, nil, group},
		{"released before", time.Hour, func(rec *StoreRecorder) error {
			rec.Defer(ctx, result)
			rec.Release(ctx)
			return nil
		}, append(slices.Clone(group), "tool.result c1")},
		{"a caller commits before", time.Hour, func(rec *StoreRecorder) error { return rec.Record(ctx, result) },
			append(slices.Clone(group), "tool.result c1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec, _, stored, shown := openRecorder(t)
			rec.Queue(ctx, event.AssistantMessage{Content: "m"})
			rec.Defer(ctx, event.ToolCall{CallID: "c1"})
			rec.ReleaseAfter(ctx, tc.delay)
			if tc.act != nil {
				assertHeld(t, rec, stored)
				if err := tc.act(rec); err != nil {
					t.Fatal(err)
				}
				rec.mu.Lock()
				if rec.release != nil {
					t.Error("the scheduled release was not stopped")
				}
				rec.mu.Unlock()
			}
			testkit.WaitFor(t, func() bool { return len(shown()) == len(tc.want) }, "the group shown")
			if err := rec.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if got := stored(); !slices.Equal(got, tc.want) || !slices.Equal(shown(), tc.want) {
				t.Fatalf("stored %v, shown %v, want %v", got, shown(), tc.want)
			}
		})
	}
}

// BackgroundWithin commits what is deferred in the background once its
// delay is up, unless a commit takes it before; until then no background
// commit takes it, and events deferred meanwhile wait to share its commit.
func TestStoreRecorderBackgroundWithin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	request, result := event.LLMRequest{Turn: 1}, event.ToolResult{CallID: "c1", OK: true}
	for _, tc := range []struct {
		name  string
		delay time.Duration
		// act is what comes before the delay is up; nil: nothing.
		act  func(rec *StoreRecorder) error
		want []string
	}{
		{"the delay is up", time.Millisecond, nil, []string{"llm.request "}},
		{"made due before", time.Hour, func(rec *StoreRecorder) error {
			rec.Defer(ctx, result)
			rec.Background(ctx)
			return nil
		}, []string{"llm.request ", "tool.result c1"}},
		{"a caller commits before", time.Hour, func(rec *StoreRecorder) error { return rec.Record(ctx, result) },
			[]string{"llm.request ", "tool.result c1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec, _, stored, shown := openRecorder(t)
			rec.Defer(ctx, request)
			rec.BackgroundWithin(ctx, tc.delay)
			if tc.act != nil {
				rec.mu.Lock()
				busy := rec.busy
				rec.mu.Unlock()
				if busy || len(stored()) != 0 {
					t.Fatalf("committed before the delay was up: busy %v, stored %v", busy, stored())
				}
				if err := tc.act(rec); err != nil {
					t.Fatal(err)
				}
			}
			testkit.WaitFor(t, func() bool { return len(shown()) == len(tc.want) }, "the deferred events shown")
			if err := rec.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if got := stored(); !slices.Equal(got, tc.want) || !slices.Equal(shown(), tc.want) {
				t.Fatalf("stored %v, shown %v, want %v", got, shown(), tc.want)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if rec.soon != nil || rec.marks != nil {
				t.Errorf("the timer (%v) or marks %v left after every event was committed", rec.soon != nil, rec.marks)
			}
		})
	}
}

// A commit that takes the events of an earlier BackgroundWithin leaves the
// later one's events to their own deadline, not the earlier one's.
func TestStoreRecorderBackgroundWithinKeepsEachDeadline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, _, stored, _ := openRecorder(t)
	rec.Defer(ctx, event.LLMRequest{Turn: 1})
	rec.BackgroundWithin(ctx, time.Hour)
	rec.Defer(ctx, event.LLMRequest{Turn: 2})
	rec.BackgroundWithin(ctx, 3*time.Hour)
	rec.mu.Lock()
	rec.due, rec.busy = 1, true // the first made due alone, as Background would have before the second
	rec.mu.Unlock()
	rec.background(ctx)
	if got, want := stored(), []string{"llm.request "}; !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v: a background commit takes what is due only", got, want)
	}
	rec.mu.Lock()
	left := time.Until(rec.soonBy)
	marks := len(rec.marks)
	rec.mu.Unlock()
	if marks != 1 || left < 2*time.Hour {
		t.Errorf("%d marks left, the timer due in %v: want the second event's deadline, about 3h", marks, left)
	}
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// Every RecordAll whose events a failure kept out of the store returns
// it: the events of callers that queued them while a commit was under way
// go in the next one (a background commit of them all), or are dropped
// with what was pending when a caller takes a background failure.
func TestStoreRecorderFailureReachesEveryCaller(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, how := range []string{"failed commit", "dropped"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			rec, s, _, shown := openRecorder(t)
			rec.mu.Lock()
			rec.busy = true // a commit under way: the callers queue and wait
			rec.mu.Unlock()
			errs := make(chan error, 2)
			for _, id := range []string{"c1", "c2"} {
				go func() { errs <- rec.RecordAll(ctx, event.ToolCall{CallID: id}) }()
			}
			testkit.WaitFor(t, func() bool {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				return len(rec.pending) == 2
			}, "both callers to queue their events")
			switch how {
			case "failed commit": // the commit under way ends; a background one takes both callers' events and fails
				s.Close()
				rec.background(ctx)
			case "dropped": // the commit under way fails: the first caller takes its failure, and drops both callers' events
				rec.mu.Lock()
				rec.err, rec.busy = fmt.Errorf("store: disk I/O error"), false
				rec.idle.Broadcast()
				rec.mu.Unlock()
			}
			for range 2 {
				if err := <-errs; err == nil {
					t.Error("a caller whose event was not committed was told it was")
				}
			}
			if got := shown(); len(got) != 0 {
				t.Errorf("shown %v", got)
			}
		})
	}
}

// Begin creates the session with its first event, shown as seq 1; End
// commits what is pending, its usage and the last event with the end, and
// shows them in order; Begin on a recorder that has a session is refused.
func TestStoreRecorderBeginAndEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := session.Open(filepath.Join(t.TempDir(), session.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var shown []string
	rec := &StoreRecorder{Store: s, Sink: func(ev session.Event) { shown = append(shown, fmt.Sprint(ev.Seq, " ", ev.Type)) }}
	info, err := rec.Begin(ctx, session.SessionInfo{Agent: "a"}, event.SessionStarted{Agent: "a", Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Session != info.ID || fmt.Sprint(shown) != "[1 session.started]" {
		t.Fatalf("after Begin: session %q (want %q), shown %v", rec.Session, info.ID, shown)
	}
	if _, err := rec.Begin(ctx, session.SessionInfo{Agent: "a"}, event.SessionStarted{Agent: "a"}); err == nil {
		t.Error("a second Begin was not refused")
	}

	if err := rec.Record(ctx, event.ToolCall{CallID: "c1"}); err != nil {
		t.Fatal(err)
	}
	rec.Defer(ctx, event.ToolResult{CallID: "c1", OK: true})
	if err := rec.RecordUsage(ctx, session.Usage{Session: info.ID, Turn: 1, Model: "m", PromptTokens: 7}); err != nil {
		t.Fatal(err)
	}
	rec.Queue(ctx, event.LLMUsage{Turn: 1})
	if err := rec.End(ctx, event.SessionEnded{Status: session.StatusCompleted, Turns: 1}, session.StatusCompleted, 1); err != nil {
		t.Fatal(err)
	}
	want := "[1 session.started 2 tool.call 3 tool.result 4 llm.usage 5 session.ended]"
	if fmt.Sprint(shown) != want {
		t.Fatalf("shown %v, want %s", shown, want)
	}
	evs, err := s.Events(ctx, info.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Session(ctx, info.ID)
	if len(evs) != 5 || got.Status != session.StatusCompleted || got.Turns != 1 || got.Tokens != 7 {
		t.Fatalf("stored %d events, session %+v; want 5, completed after 1 turn with 7 tokens", len(evs), got)
	}
	rec.mu.Lock()
	busy, pending := rec.busy, len(rec.pending)+len(rec.usage)
	rec.mu.Unlock()
	if busy || pending != 0 {
		t.Fatalf("after End: a commit is running (%v) or %d entries are pending", busy, pending)
	}

	// Ending again is refused by the store; the event is kept and shown.
	err = rec.End(ctx, event.SessionEnded{Status: session.StatusError}, session.StatusError, 1)
	if err == nil || !strings.Contains(err.Error(), "already ended with status completed") {
		t.Fatalf("a second End: error %v, want one naming the status", err)
	}
	if shown[len(shown)-1] != "6 session.ended" {
		t.Errorf("the refused end's event was not shown: %v", shown)
	}
}

// Sink gets each event with the value it was recorded as when what is
// stored encodes it exactly, so event.Decode need not decode it again;
// an event that redaction changed comes without it and decodes as stored.
func TestStoreRecorderHandsTheValueToSink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec, _, _, _ := openRecorder(t)
	var got []session.Event
	rec.Sink = func(ev session.Event) { got = append(got, ev) }
	rec.Redact = func(d event.Data) (any, bool) {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		redacted := strings.ReplaceAll(string(b), "hunter2", "[redacted]")
		return session.Encoded(redacted), redacted == string(b)
	}
	plain := event.AgentResponse{Text: "all done"}
	secret := event.AgentResponse{Text: "the password is hunter2"}
	if err := rec.RecordAll(ctx, plain, secret); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("shown %d events, want 2", len(got))
	}
	if v, ok := got[0].Value.(event.AgentResponse); !ok || v != plain {
		t.Errorf("the unredacted event's value = %#v, want %#v", got[0].Value, plain)
	}
	if got[1].Value != nil {
		t.Errorf("the redacted event came with its value %#v: Sink would show the secret", got[1].Value)
	}
	for i, want := range []string{"all done", "the password is [redacted]"} {
		d, err := event.Decode(got[i])
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := d.(event.AgentResponse); !ok || r.Text != want {
			t.Errorf("event %d decodes as %#v, want the text %q", i, d, want)
		}
	}
}
