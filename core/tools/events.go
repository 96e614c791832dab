package tools

import (
	"context"
	"encoding/json"

	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// Recorder receives the events of tool calls (DESIGN §8). The agent loop
// passes one bound to its session; it must be safe for concurrent use.
type Recorder interface {
	Record(ctx context.Context, typ string, data any) error
}

// Event types written by this package.
const (
	EventToolCall     = "tool.call"
	EventToolProgress = "tool.progress"
	EventToolResult   = "tool.result"
	// EventArtifactPrefix is followed by the artifact's type: artifact.note.
	EventArtifactPrefix = "artifact."
)

// CallEvent is the data of tool.call.
type CallEvent struct {
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// ProgressEvent is the data of tool.progress.
type ProgressEvent struct {
	CallID string `json:"call_id"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// ErrorData is a structured error as events carry it.
type ErrorData struct {
	Kind    sdk.ErrorKind `json:"kind"`
	Message string        `json:"message"`
}

// ResultEvent is the data of tool.result, and the result recorded with an
// executed action. Content is what the model was given, so a resumed
// conversation reads it from here.
type ResultEvent struct {
	CallID       string          `json:"call_id"`
	Tool         string          `json:"tool"`
	OK           bool            `json:"ok"`
	Content      string          `json:"content"`
	Error        *ErrorData      `json:"error,omitempty"`
	Presentation json.RawMessage `json:"presentation,omitempty"`
	DurationMS   int64           `json:"duration_ms"`
	// ActionID is set for a call that went through the action pipeline.
	ActionID string `json:"action_id,omitempty"`
}

// ResultEvent describes the outcome as the tool.result event does.
func (o Outcome) ResultEvent() ResultEvent {
	ev := ResultEvent{
		CallID:       o.Call.ID,
		Tool:         o.Call.Tool,
		OK:           o.Result.Err == nil,
		Content:      o.Result.Content,
		Presentation: MarshalPresentation(o.Result.Presentation),
		DurationMS:   o.Duration.Milliseconds(),
		ActionID:     o.ActionID,
	}
	if e := o.Result.Err; e != nil {
		ev.Error = &ErrorData{Kind: e.Kind, Message: e.Message}
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

func (r sessionRecorder) Record(ctx context.Context, typ string, data any) error {
	_, err := r.store.Append(ctx, r.id, typ, data)
	return err
}

// discard is the recorder of an executor given none.
type discard struct{}

func (discard) Record(context.Context, string, any) error { return nil }
