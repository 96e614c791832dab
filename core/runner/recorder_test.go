package runner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
)

// RecordAll shows a group only once it is committed: all of it after a
// commit, none of it when the commit fails.
func TestRecorderShowsAGroupOnlyOnceCommitted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := session.Open(filepath.Join(t.TempDir(), "harness.db"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.CreateSession(ctx, session.SessionInfo{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var shown []session.Event
	rec := &tools.StoreRecorder{Store: s, Session: info.ID, Sink: func(ev session.Event) { shown = append(shown, ev) }}
	if err := rec.RecordAll(ctx, event.AssistantMessage{Content: "hi"}, event.AgentResponse{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	stored, err := s.Events(ctx, info.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 2 || len(stored) != 2 || shown[0].Seq != stored[0].Seq || shown[1].Type != event.TypeAgentResponse {
		t.Fatalf("shown %+v, stored %+v", shown, stored)
	}
	s.Close()
	if err := rec.RecordAll(ctx, event.AssistantMessage{Content: "again"}, event.AgentResponse{Text: "again"}); err == nil {
		t.Fatal("RecordAll on a closed store succeeded")
	}
	if len(shown) != 2 {
		t.Fatalf("a group that was not committed was shown: %+v", shown[2:])
	}
}
