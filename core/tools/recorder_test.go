package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
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
