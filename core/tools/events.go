package tools

import (
	"context"
	"encoding/json"
	"sync"

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

// MarshalPresentation encodes a presentation view as tool.result carries
// it (event.MarshalPresentation, which also decodes it).
func MarshalPresentation(p sdk.Presentation) json.RawMessage { return event.MarshalPresentation(p) }

// SessionRecorder records events in session id of store.
func SessionRecorder(store *session.Store, id string) *StoreRecorder {
	return &StoreRecorder{Store: store, Session: id}
}

// StoreRecorder commits the events of one session to a store and hands
// each to Sink once it is committed, in sequence order: an event is never
// shown before it is in the store. It defers (event.Deferrer): a deferred
// event, and a usage row given to RecordUsage, are committed in the
// transaction of the next Record, RecordAll or Flush, before that call's
// own events. It is safe for concurrent use.
type StoreRecorder struct {
	Store   *session.Store
	Session string
	// Sink is handed each event once committed; nil: none.
	Sink func(session.Event)
	// Redact returns what is stored of d (d without the run's secrets);
	// nil stores d as it is.
	Redact func(d event.Data) any

	mu      sync.Mutex
	pending []session.Entry
	usage   []session.Usage
}

var _ event.Deferrer = (*StoreRecorder)(nil)

// Record commits d, with whatever was deferred before it.
func (r *StoreRecorder) Record(ctx context.Context, d event.Data) error {
	return r.RecordAll(ctx, d)
}

// RecordAll commits what was deferred and ds in one transaction, then hands
// them to Sink; when the commit fails none of them is shown (nor kept).
func (r *StoreRecorder) RecordAll(ctx context.Context, ds ...event.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range ds {
		r.pending = append(r.pending, r.entry(d))
	}
	return r.commitLocked(ctx)
}

// Defer adds d to what the next commit holds.
func (r *StoreRecorder) Defer(_ context.Context, d event.Data) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, r.entry(d))
}

// Flush commits what was deferred.
func (r *StoreRecorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commitLocked(ctx)
}

// RecordUsage meters a model request (agent.Meter) in the next commit: the
// llm.usage event that goes with it is recorded next to it.
func (r *StoreRecorder) RecordUsage(_ context.Context, u session.Usage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.usage = append(r.usage, u)
	return nil
}

func (r *StoreRecorder) entry(d event.Data) session.Entry {
	var data any = d
	if r.Redact != nil {
		data = r.Redact(d)
	}
	return session.Entry{Type: d.EventType(), Data: data}
}

func (r *StoreRecorder) commitLocked(ctx context.Context) error {
	entries, usage := r.pending, r.usage
	r.pending, r.usage = nil, nil
	if len(entries) == 0 && len(usage) == 0 {
		return nil
	}
	var evs []session.Event
	var err error
	if len(entries) == 1 && len(usage) == 0 {
		var ev session.Event
		if ev, err = r.Store.Append(ctx, r.Session, entries[0].Type, entries[0].Data); err == nil {
			evs = []session.Event{ev}
		}
	} else {
		evs, err = r.Store.AppendAll(ctx, r.Session, entries, usage...)
	}
	return r.shown(evs, err)
}

// shown hands committed events to Sink; after a failed commit, nothing.
func (r *StoreRecorder) shown(evs []session.Event, err error) error {
	if err != nil {
		return err
	}
	if r.Sink != nil {
		for _, ev := range evs {
			r.Sink(ev)
		}
	}
	return nil
}

// RecordOnce commits ds and usage in one transaction at most once per key
// (session.Store.AppendAllOnce), after what was deferred: a retried
// Temporal activity that commits them again stores and shows nothing twice.
func (r *StoreRecorder) RecordOnce(ctx context.Context, key string, ds []event.Data, usage []session.Usage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.commitLocked(ctx); err != nil {
		return err
	}
	entries := make([]session.Entry, len(ds))
	for i, d := range ds {
		entries[i] = r.entry(d)
	}
	return r.shown(r.Store.AppendAllOnce(ctx, r.Session, key, entries, usage...))
}

// Claim records key in the session's once keys and reports whether it was
// new (session.Store.Claim).
func (r *StoreRecorder) Claim(ctx context.Context, key string) (bool, error) {
	return r.Store.Claim(ctx, r.Session, key)
}
