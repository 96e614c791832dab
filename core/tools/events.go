package tools

import (
	"context"
	"encoding/json"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// Recorder receives the events of tool calls (DESIGN §8). The agent loop
// passes one bound to its session; it must be safe for concurrent use.
type Recorder = event.Recorder

// ResultEvent is the data of tool.result, and the result recorded with an
// executed action.
type ResultEvent = event.ToolResult

// ResultEvent describes the outcome as the tool.result event does.
func (o Outcome) ResultEvent() event.ToolResult {
	ev := event.ToolResult{
		CallID:       o.Call.ID,
		Tool:         o.Call.Tool,
		OK:           o.Result.Err == nil,
		Content:      o.Result.Content,
		Presentation: MarshalPresentation(o.Result.Presentation),
		DurationMS:   o.Duration.Milliseconds(),
		ActionID:     o.ActionID,
	}
	if e := o.Result.Err; e != nil {
		ev.Error = &event.ErrorData{Kind: e.Kind, Message: e.Message}
	}
	return ev
}

// MarshalPresentation encodes a presentation view as a JSON object with its
// kind: {"kind":"terminal","command":…,"exit_code":…,"output":…}. A nil
// view is nil.
func MarshalPresentation(p sdk.Presentation) json.RawMessage {
	if p == nil {
		return nil
	}
	body, err := json.Marshal(p)
	if err != nil || len(body) < 2 || body[0] != '{' {
		return nil
	}
	kind, _ := json.Marshal(p.PresentationKind())
	out := append([]byte(`{"kind":`), kind...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...)
}

// SessionRecorder records events in session id of store.
func SessionRecorder(store *session.Store, id string) Recorder {
	return sessionRecorder{store: store, id: id}
}

type sessionRecorder struct {
	store *session.Store
	id    string
}

func (r sessionRecorder) Record(ctx context.Context, d event.Data) error {
	_, err := r.store.Append(ctx, r.id, d.EventType(), d)
	return err
}
