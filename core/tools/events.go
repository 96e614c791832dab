package tools

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/internal/gopool"
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
// event is committed by the next Record, RecordAll, RecordOnce or Flush,
// before that call's own events, or earlier in the background once
// Background is called, or BackgroundWithin's delay is up (as soon as the
// commit under way is done; the events deferred meanwhile go together in
// the next commit). A usage row given to RecordUsage is committed with
// the event queued next. One commit runs at a time, so the order of the
// store and of Sink is the order events were queued in.
//
// When a background commit fails, neither its events nor those deferred
// after them are stored or shown, and the next Record, RecordAll,
// RecordOnce, Flush or Failed returns the error (once) and drops its own
// events too: whoever acts on the world after committing stops there. A
// Record or RecordAll whose own events a failure kept out of the store
// (they went in a commit that failed, or were dropped) returns it as well.
// It is safe for concurrent use.
type StoreRecorder struct {
	Store   *session.Store
	Session string
	// Sink is handed each event once committed; nil: none. It runs in the
	// goroutine that committed (the caller's or a background one) while
	// that commit still holds r: it must not record through r, which
	// would wait for itself.
	Sink func(session.Event)
	// Redact returns what is stored of d (d without the run's secrets)
	// and whether that encodes d exactly (nothing was redacted); nil
	// stores d as it is.
	Redact func(d event.Data) (stored any, same bool)

	mu      sync.Mutex
	pending []session.Entry
	usage   []queuedUsage
	queued  int // entries ever queued: the index of the next one
	// holding: a background commit takes no entry from index holdFrom on
	// (Queue).
	holding  bool
	holdFrom int
	// due: a background commit takes no entry from index due on; Defer
	// leaves its entry to the next caller's commit or to whatever makes it
	// due (Background, Release, BackgroundWithin's delay).
	due int
	// busy: a commit is under way (in the background goroutine, which
	// holds it until nothing is pending, or in a caller); only its holder
	// touches the store. idle is signalled when it is let go.
	busy bool
	idle sync.Cond
	// err is the background commit's failure, until a caller returns it.
	err error
	// release is the Release that ReleaseAfter scheduled, if any; a
	// Release or a caller's commit before it fires stops it.
	release *time.Timer
	// marks are BackgroundWithin's deadlines, by index: each for the
	// entries queued before it was set, until a commit takes them or they
	// are made due. soon fires at the earliest, soonBy.
	marks  []soonMark
	soon   *time.Timer
	soonBy time.Time
	// callers: RecordAll calls under way; lost: while there are any, the
	// entries that a failed commit, or a failure's drop, took from them.
	callers int
	lost    []lostSpan
}

// soonMark is a BackgroundWithin deadline: the entries before index (see
// queued) are made due by then.
type soonMark struct {
	index int
	by    time.Time
}

// lostSpan is the entries from index from to index to (see queued) that
// were not committed, and why.
type lostSpan struct {
	from, to int
	err      error
}

// queuedUsage is a usage row and the entry it is committed with.
type queuedUsage struct {
	session.Usage
	with int // the index of that entry (see queued)
}

var _ event.Deferrer = (*StoreRecorder)(nil)

// Record commits d, with whatever was deferred before it.
func (r *StoreRecorder) Record(ctx context.Context, d event.Data) error {
	return r.RecordAll(ctx, d)
}

// RecordAll commits what was deferred and ds in one transaction, then hands
// them to Sink; when the commit fails none of them is shown (nor kept).
// ds may go in a commit under way when they are queued (another caller's
// or a background one): RecordAll returns its failure then.
func (r *StoreRecorder) RecordAll(ctx context.Context, ds ...event.Data) error {
	entries := r.entries(ds)
	r.mu.Lock()
	defer r.mu.Unlock()
	from := r.queued
	r.queueLocked(entries)
	r.callers++
	defer func() {
		if r.callers--; r.callers == 0 {
			r.lost = nil
		}
	}()
	if err := r.acquireLocked(); err != nil {
		return err
	}
	defer r.releaseLocked(ctx, false)
	if err := r.commitLocked(ctx, false); err != nil {
		return err
	}
	return r.lostLocked(from, from+len(entries))
}

// lostLocked is the failure of a commit that took some of the entries from
// index from to index to, or of a failure's drop of them: nil when none.
func (r *StoreRecorder) lostLocked(from, to int) error {
	for _, l := range r.lost {
		if l.from < to && from < l.to {
			return l.err
		}
	}
	return nil
}

// loseLocked notes that the entries from index from to index to were not
// committed, for the callers whose entries they are (RecordAll).
func (r *StoreRecorder) loseLocked(from, to int, err error) {
	if r.callers > 0 && from < to {
		r.lost = append(r.lost, lostSpan{from, to, err})
	}
}

// Begin creates the session info describes with d as its first event,
// both in one transaction (session.Store.CreateSessionWith), binds r to it
// and hands the event to Sink. It is for a recorder made before its
// session exists (Session empty), and must come before anything else is
// recorded through r.
func (r *StoreRecorder) Begin(ctx context.Context, info session.SessionInfo, d event.Data) (session.SessionInfo, error) {
	entries := r.entries([]event.Data{d})
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.acquireLocked(); err != nil {
		return session.SessionInfo{}, err
	}
	defer r.releaseLocked(ctx, true)
	if r.Session != "" || r.queued > 0 {
		return session.SessionInfo{}, errors.New("StoreRecorder.Begin: the recorder already has a session or events")
	}
	r.mu.Unlock()
	info, evs, err := r.Store.CreateSessionWith(ctx, info, entries...)
	r.mu.Lock()
	if err != nil {
		return session.SessionInfo{}, err
	}
	r.Session = info.ID
	r.queued = len(entries)
	r.mu.Unlock()
	defer r.mu.Lock()
	return info, r.shown(evs, nil)
}

// End commits what is pending and d, then ends the session with status
// after turns turns, all in one transaction (session.Store.EndSessionWith),
// and hands the events to Sink; it returns once nothing is pending nor
// being committed, as Flush does. After a background commit failed, the
// session is ended all the same and the failure returned. When the store
// refuses the end (the session is not running), the events are committed
// and shown, and the refusal returned.
func (r *StoreRecorder) End(ctx context.Context, d event.Data, status string, turns int) error {
	entry := r.entry(d)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queueLocked([]session.Entry{entry})
	if err := r.acquireLocked(); err != nil {
		r.mu.Unlock()
		defer r.mu.Lock()
		return errors.Join(err, r.Store.EndSession(ctx, r.Session, status, turns))
	}
	defer r.releaseLocked(ctx, true)
	entries, usage := r.pending, make([]session.Usage, 0, len(r.usage))
	for _, u := range r.usage {
		usage = append(usage, u.Usage)
	}
	from := r.queued - len(entries)
	r.pending, r.usage, r.holding = nil, nil, false
	r.stopReleaseLocked() // this commit takes what it would release
	r.dropMarksLocked()
	r.mu.Unlock()
	defer r.mu.Lock()
	evs, err := r.Store.EndSessionWith(ctx, r.Session, status, turns, entries, usage...)
	if err != nil && evs == nil {
		r.mu.Lock()
		r.loseLocked(from, r.queued, err)
		r.mu.Unlock()
	}
	if shownErr := r.shown(evs, nil); shownErr != nil {
		return shownErr
	}
	return err
}

// Defer adds d to what the next commit holds: a caller's, or a background
// one once d is due (Background, Release, BackgroundWithin's delay make
// what is deferred due).
func (r *StoreRecorder) Defer(_ context.Context, d event.Data) {
	entry := r.entry(d)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queueLocked([]session.Entry{entry})
}

// Background starts committing what was deferred in the background,
// unless a commit is under way (a background one then takes it next; a
// caller's hands it to one), and returns at once.
func (r *StoreRecorder) Background(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.startLocked(ctx)
}

// BackgroundWithin is Background in d at the latest: what is deferred by
// now goes in a background commit by then, unless a commit takes it before
// (a caller's, or one that Background or Release starts). For events that
// may be shown a little later, so that those deferred soon after them
// share their commit.
func (r *StoreRecorder) BackgroundWithin(ctx context.Context, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.marks = append(r.marks, soonMark{index: r.queued, by: time.Now().Add(d)})
	r.armLocked(context.WithoutCancel(ctx))
}

// armLocked sets the timer for the earliest of marks, or stops it when
// there are none.
func (r *StoreRecorder) armLocked(ctx context.Context) {
	if len(r.marks) == 0 {
		r.dropMarksLocked()
		return
	}
	by := r.marks[0].by
	for _, m := range r.marks[1:] {
		if m.by.Before(by) {
			by = m.by
		}
	}
	if r.soon != nil && r.soonBy.Equal(by) {
		return
	}
	r.afterLocked(&r.soon, time.Until(by), func() { r.startLocked(ctx) })
	r.soonBy = by
}

// takenLocked drops the marks of entries a commit took, the entries
// before index end, and sets the timer for those left.
func (r *StoreRecorder) takenLocked(ctx context.Context, end int) {
	if len(r.marks) == 0 {
		return
	}
	i := 0
	for i < len(r.marks) && r.marks[i].index <= end {
		i++
	}
	if i > 0 {
		r.marks = r.marks[i:]
		r.armLocked(ctx)
	}
}

// startLocked makes what is deferred due and starts a background commit
// of it, unless a commit is under way (a background one takes it next; a
// caller's hands it to one) or one failed.
func (r *StoreRecorder) startLocked(ctx context.Context) {
	r.due = r.queued
	r.dropMarksLocked()
	if !r.busy && r.err == nil && r.takeableLocked(true) > 0 {
		r.busy = true
		r.goBackground(ctx)
	}
}

// dropMarksLocked forgets BackgroundWithin's deadlines: what they were
// for is due, committed or dropped.
func (r *StoreRecorder) dropMarksLocked() {
	r.marks = nil
	stopTimer(&r.soon)
}

// Release lets a Queue hold go and starts committing everything pending
// in the background (see Background): for a caller that queued a group
// and finds that nothing it does next acts on the world.
func (r *StoreRecorder) Release(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.letGoLocked(ctx)
}

// ReleaseAfter is Release in d, unless Release is called, or a caller
// commits (Record, RecordAll, RecordOnce, Flush, End), before: for a
// caller that queued a group and deferred what it is about to do, which
// does not act on the world, and would rather commit the group with that
// work's outcome than while the work runs. A later ReleaseAfter replaces
// an earlier one.
func (r *StoreRecorder) ReleaseAfter(ctx context.Context, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.afterLocked(&r.release, d, func() { r.letGoLocked(ctx) })
}

// letGoLocked lets the hold go and commits what is pending in the
// background (Release).
func (r *StoreRecorder) letGoLocked(ctx context.Context) {
	r.stopReleaseLocked()
	r.holding = false
	r.startLocked(ctx)
}

// stopReleaseLocked cancels the release ReleaseAfter scheduled.
func (r *StoreRecorder) stopReleaseLocked() { stopTimer(&r.release) }

// afterLocked sets *slot to a timer that runs fn with r.mu held in d,
// unless *slot no longer holds it by then (stopped or replaced); the
// timer it replaces is stopped.
func (r *StoreRecorder) afterLocked(slot **time.Timer, d time.Duration, fn func()) {
	stopTimer(slot)
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if *slot == t {
			*slot = nil
			fn()
		}
	})
	*slot = t
}

// stopTimer stops the timer in *slot, if any, and clears it.
func stopTimer(slot **time.Timer) {
	if *slot != nil {
		(*slot).Stop()
		*slot = nil
	}
}

// Queue adds d to what the next commit holds, for the caller's next
// Record, RecordAll or Flush: no background commit takes d, nor what is
// deferred after it, so they go in that call's transaction.
func (r *StoreRecorder) Queue(_ context.Context, d event.Data) {
	entry := r.entry(d)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.holding {
		r.holding, r.holdFrom = true, r.queued
	}
	r.queueLocked([]session.Entry{entry})
}

// Flush commits what was deferred and returns once nothing is pending nor
// being committed, in the background or by another caller (no goroutine of
// r runs then, unless another Defer starts one).
func (r *StoreRecorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.acquireLocked(); err != nil {
		return err
	}
	defer r.releaseLocked(ctx, true)
	for len(r.pending) > 0 || len(r.usage) > 0 {
		if err := r.commitLocked(ctx, false); err != nil {
			return err
		}
	}
	return nil
}

// Failed returns, once, the failure of a background commit that already
// failed, without waiting for one under way: nil while none did.
func (r *StoreRecorder) Failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.takeErrLocked()
}

// RecordUsage meters a model request (agent.Meter): the row is committed
// with the event queued next (its llm.usage event), or by the next commit
// a caller makes.
func (r *StoreRecorder) RecordUsage(_ context.Context, u session.Usage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.usage = append(r.usage, queuedUsage{u, r.queued})
	return nil
}

func (r *StoreRecorder) entries(ds []event.Data) []session.Entry {
	entries := make([]session.Entry, len(ds))
	for i, d := range ds {
		entries[i] = r.entry(d)
	}
	return entries
}

func (r *StoreRecorder) entry(d event.Data) session.Entry {
	if r.Redact == nil {
		return session.Entry{Type: d.EventType(), Data: d, Value: d}
	}
	e := session.Entry{Type: d.EventType()}
	var same bool
	if e.Data, same = r.Redact(d); same {
		e.Value = d // what is stored encodes d exactly: Sink gets d itself
	}
	return e
}

func (r *StoreRecorder) queueLocked(entries []session.Entry) {
	r.pending = append(r.pending, entries...)
	r.queued += len(entries)
}

// acquireLocked waits until no commit is under way and takes the right to
// commit; after a background failure it drops what is pending and
// returns the failure instead.
func (r *StoreRecorder) acquireLocked() error {
	if r.idle.L == nil {
		r.idle.L = &r.mu
	}
	for r.busy {
		r.idle.Wait()
	}
	if err := r.takeErrLocked(); err != nil {
		return err
	}
	r.busy = true
	return nil
}

// releaseLocked lets the right to commit go: to a background commit of
// what was deferred meanwhile, unless wait (Flush, whose caller waits
// for everything) or it failed.
func (r *StoreRecorder) releaseLocked(ctx context.Context, wait bool) {
	if !wait && r.err == nil && r.takeableLocked(true) > 0 {
		r.goBackground(ctx)
		return
	}
	r.busy = false
	r.idle.Broadcast()
}

func (r *StoreRecorder) takeErrLocked() error {
	err := r.err
	if err != nil {
		r.err = nil
		r.loseLocked(r.queued-len(r.pending), r.queued, err)
		r.pending, r.usage, r.holding = nil, nil, false
		r.dropMarksLocked()
	}
	return err
}

// takeableLocked is how many pending entries a commit takes: a caller's
// all of them, a background one those that are due and not held.
func (r *StoreRecorder) takeableLocked(background bool) int {
	if !background {
		return len(r.pending)
	}
	end := r.due
	if r.holding {
		end = min(end, r.holdFrom)
	}
	return max(0, min(len(r.pending), end-(r.queued-len(r.pending))))
}

// goBackground runs background on a pooled goroutine: a commit goes deep
// into SQLite, and a new goroutine would grow its stack anew each time.
func (r *StoreRecorder) goBackground(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	gopool.Go(func() { r.background(ctx) })
}

// background commits what is deferred until nothing is, or a commit fails
// (its error waits for a caller).
func (r *StoreRecorder) background(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.idle.L == nil {
		r.idle.L = &r.mu
	}
	for r.takeableLocked(true) > 0 && r.err == nil {
		r.err = r.commitLocked(ctx, true)
	}
	r.busy = false
	r.idle.Broadcast()
}

// commitLocked commits what is pending, with r.mu unlocked while the store
// works (r.busy keeps other commits out), then hands it to Sink. A
// background commit leaves the usage rows whose event is not queued yet.
func (r *StoreRecorder) commitLocked(ctx context.Context, background bool) error {
	n := r.takeableLocked(background)
	end := r.queued - len(r.pending) + n // the index after the last entry taken
	entries := r.pending[:n:n]
	if r.pending = r.pending[n:]; len(r.pending) == 0 {
		r.pending = nil
	}
	r.takenLocked(ctx, end) // this commit takes what they were for
	if !background {
		r.holding = false
		r.stopReleaseLocked() // this commit takes what it would release
	}
	var usage []session.Usage
	keep := r.usage[:0]
	for _, u := range r.usage {
		if background && u.with >= end {
			keep = append(keep, u)
		} else {
			usage = append(usage, u.Usage)
		}
	}
	r.usage = keep
	if len(keep) == 0 {
		r.usage = nil
	}
	if len(entries) == 0 && len(usage) == 0 {
		return nil
	}
	r.mu.Unlock()
	defer r.mu.Lock()
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
	if err != nil {
		r.mu.Lock()
		r.loseLocked(end-n, end, err)
		r.mu.Unlock()
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
	entries := r.entries(ds)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.acquireLocked(); err != nil {
		return err
	}
	defer r.releaseLocked(ctx, false)
	if err := r.commitLocked(ctx, false); err != nil {
		return err
	}
	r.mu.Unlock()
	defer r.mu.Lock()
	return r.shown(r.Store.AppendAllOnce(ctx, r.Session, key, entries, usage...))
}

// Claim records key in the session's once keys and reports whether it was
// new (session.Store.Claim).
func (r *StoreRecorder) Claim(ctx context.Context, key string) (bool, error) {
	return r.Store.Claim(ctx, r.Session, key)
}
