package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unsafe"
)

// Event is one entry of a session's append-only event stream. Seq numbers
// the events of a session 1, 2, 3… without gaps; Data is a JSON object.
type Event struct {
	Seq     int64           `json:"seq"`
	Time    time.Time       `json:"time"`
	Session string          `json:"session"`
	Type    string          `json:"type"`
	Data    json.RawMessage `json:"data"`
	// Value is the Entry.Value of an event a commit returned: what Data
	// encodes, as its writer had it; nil for events read from the store.
	Value any `json:"-"`
}

var _ json.Marshaler = Event{}

// MarshalJSON renders the envelope of DESIGN §8, one line of
// `harness run --json`:
// {"seq":N,"time":"RFC3339","session":"ID","type":"…","data":{…}}.
// The time is UTC with up to nanosecond precision; empty data is {}.
func (e Event) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(nil), nil
}

// AppendJSON appends the envelope MarshalJSON renders to b. Data is
// copied as it is stored (the store only holds JSON objects that
// encoding/json wrote), not scanned again: for a 64 KiB tool result that
// scan cost as much as encoding it.
func (e Event) AppendJSON(b []byte) []byte {
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendQuote(b, e.Time.UTC().Format(time.RFC3339Nano)) // digits, letters and punctuation only
	b = append(b, `,"session":`...)
	b = appendJSONString(b, e.Session)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"data":`...)
	b = append(b, data...)
	return append(b, '}')
}

// appendJSONString appends s as encoding/json encodes a string.
func appendJSONString(b []byte, s string) []byte {
	if plainJSON(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// plainJSON says whether encoding/json writes s as it is between quotes:
// printable ASCII without '"', '\\' and the HTML characters it escapes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// appendEventSQL computes and claims the next seq in one statement;
// UNIQUE(session, seq) makes a duplicate impossible even if two writers
// raced.
const appendEventSQL = `INSERT INTO events (session, seq, time, type, data)
	SELECT ?1, coalesce((SELECT max(seq) FROM events WHERE session = ?1), 0) + 1, ?2, ?3, ?4
	FROM sessions WHERE id = ?1
	RETURNING seq`

// Append records an event of type typ in session (the full id) with data
// encoded as JSON (nil is {}; anything else must encode to an object). The
// event is committed, with the next seq of the session, when Append
// returns.
func (s *Store) Append(ctx context.Context, session, typ string, data any) (Event, error) {
	op := fmt.Sprintf("append %s event to session %s", typ, session)
	if typ == "" {
		return Event{}, s.fail(op, errors.New("empty event type"))
	}
	raw, err := EncodeData(data)
	if err != nil {
		return Event{}, s.fail(op, err)
	}
	ev := Event{Session: session, Type: typ, Data: raw}
	if s.pg {
		err := s.appendPostgres(ctx, op, &ev)
		return ev, err
	}
	err = s.writeWith(ctx, op, []string{appendEventSQL}, func(tx *sql.Tx) error {
		// Taken under the write lock, so times increase with seq (as far as
		// the wall clock does).
		ev.Time = time.Now().UTC()
		err := s.txQueryRow(ctx, tx, appendEventSQL, session, ev.Time.UnixNano(), typ, textOf(raw)).Scan(&ev.Seq)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("session")
		}
		return err
	})
	if err != nil {
		return Event{}, err
	}
	return ev, nil
}

// Encoded is event data that json.Marshal already encoded as one JSON
// object (the runner's redaction does): Append and AppendAll store it as it
// is, without encoding or scanning it again. Anything else given to them,
// a json.RawMessage included, goes through EncodeData.
type Encoded []byte

// jsonAppender is event data that encodes itself as json.Marshal would,
// faster (event.ToolResult, whose content is a tool's output).
type jsonAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// EncodeData encodes event data as the store stores it: an Encoded value
// as it is, data with an AppendJSON method (event.ToolResult) by it, the
// rest with json.Marshal; it must be a JSON object (nil is {}).
func EncodeData(data any) (json.RawMessage, error) {
	if data == nil {
		return json.RawMessage("{}"), nil
	}
	if enc, ok := data.(Encoded); ok {
		if len(enc) < 2 || enc[0] != '{' {
			return nil, errors.New("encoded event data must be a JSON object")
		}
		return json.RawMessage(enc), nil
	}
	var b []byte
	var err error
	if a, ok := data.(jsonAppender); ok {
		b, err = a.AppendJSON(nil)
	} else {
		b, err = json.Marshal(data)
	}
	if err != nil {
		return nil, fmt.Errorf("encode event data: %w", err)
	}
	switch {
	case string(b) == "null":
		return json.RawMessage("{}"), nil
	case b[0] != '{':
		if len(b) > 40 {
			b = append(b[:40], "…"...)
		}
		return nil, fmt.Errorf("event data must be a JSON object, not %s", b)
	}
	return b, nil
}

// Events returns the events of session (the full id) with a seq above
// afterSeq, in order; afterSeq 0 returns them all.
func (s *Store) Events(ctx context.Context, session string, afterSeq int64) ([]Event, error) {
	op := "read events of session " + session
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT seq, time, type, data FROM events
		WHERE session = ? AND seq > ? ORDER BY seq`), session, afterSeq)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var (
			ev   = Event{Session: session}
			t    int64
			data string
		)
		if err := rows.Scan(&ev.Seq, &t, &ev.Type, &data); err != nil {
			return nil, s.fail(op, err)
		}
		ev.Time = fromNanos(t)
		ev.Data = json.RawMessage(data)
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	if len(out) == 0 {
		if err := s.sessionExists(ctx, s.db, session); err != nil {
			return nil, s.fail(op, err)
		}
	}
	return out, nil
}

const sessionExistsSQL = `SELECT count(*) FROM sessions WHERE id = ?`

// sessionExists fails with a not-found error when there is no session id.
func (s *Store) sessionExists(ctx context.Context, q queryer, id string) error {
	var n int
	var row *sql.Row
	if tx, ok := q.(*sql.Tx); ok {
		row = s.txQueryRow(ctx, tx, sessionExistsSQL, id)
	} else {
		row = q.QueryRowContext(ctx, s.q(sessionExistsSQL), id)
	}
	if err := row.Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return notFound("session")
	}
	return nil
}

// Entry is one event to commit with AppendAll: its type and data, as Append
// takes them.
type Entry struct {
	Type string
	Data any
	// Value, optional, is what Data encodes, as its writer has it (a typed
	// event). It is not stored: the events a commit returns carry it in
	// Event.Value, so whoever shows them need not decode what was just
	// encoded. A writer sets it only when Data encodes exactly it (no
	// redaction changed anything).
	Value any
}

// AppendAll commits entries to session in one transaction, in order, with
// consecutive seqs, and with them the usage rows (RecordUsage's) of the
// session: when it returns without error all of them are committed, and on
// error none is. One transaction for the events a step of the run produces
// together costs one commit instead of one per event.
func (s *Store) AppendAll(ctx context.Context, session string, entries []Entry, usage ...Usage) ([]Event, error) {
	return s.appendAll(ctx, session, "", entries, usage)
}

// AppendAllOnce is AppendAll done at most once per key in session: when a
// group with this key was committed before, it commits nothing and returns
// no events. A retried Temporal activity commits again the events and
// usage an earlier attempt may have committed; its key makes the second
// commit a no-op, decided in the same transaction.
func (s *Store) AppendAllOnce(ctx context.Context, session, key string, entries []Entry, usage ...Usage) ([]Event, error) {
	if key == "" {
		return nil, s.fail("append events to session "+session, errors.New("AppendAllOnce needs a key"))
	}
	return s.appendAll(ctx, session, key, entries, usage)
}

// Claim records key in session's once keys (those of AppendAllOnce) and
// reports whether it was new: a Temporal activity learns so whether an
// earlier execution of it got that far.
func (s *Store) Claim(ctx context.Context, session, key string) (bool, error) {
	op := fmt.Sprintf("claim key %s of session %s", key, session)
	if key == "" {
		return false, s.fail(op, errors.New("empty key"))
	}
	claimed := false
	err := s.writeWith(ctx, op, []string{sessionExistsSQL, claimKeySQL}, func(tx *sql.Tx) error {
		var err error
		claimed, err = s.claimKey(ctx, tx, session, key)
		return err
	})
	return claimed, err
}

const claimKeySQL = `INSERT INTO once_keys (session, key) VALUES (?, ?) ON CONFLICT DO NOTHING`

// claimKey records key in session's once_keys; false when it was there.
// It fails with a not-found error when there is no such session.
func (s *Store) claimKey(ctx context.Context, tx *sql.Tx, session, key string) (bool, error) {
	if err := s.sessionExists(ctx, tx, session); err != nil {
		return false, err
	}
	res, err := s.txExec(ctx, tx, claimKeySQL, session, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s *Store) appendAll(ctx context.Context, session, key string, entries []Entry, usage []Usage) ([]Event, error) {
	if len(entries) == 0 && len(usage) == 0 {
		return nil, nil
	}
	op := appendOp(session, entries)
	evs, err := s.encodeEntries(op, session, entries, usage)
	if err != nil {
		return nil, err
	}
	// The statements this commit runs, prepared once per store.
	var stmts []string
	if key != "" {
		stmts = append(stmts, sessionExistsSQL, claimKeySQL)
	}
	stmts = append(stmts, appendStmts(evs, usage)...)
	done := false
	err = s.writeWith(ctx, op, stmts, func(tx *sql.Tx) error {
		if key != "" {
			claimed, err := s.claimKey(ctx, tx, session, key)
			if done = !claimed; err != nil || done {
				return err
			}
		}
		return s.appendInTx(ctx, tx, session, evs, usage)
	})
	if err != nil || done {
		return nil, err
	}
	return evs, nil
}

// appendOp names a commit of entries to session, for its errors.
func appendOp(session string, entries []Entry) string {
	if len(entries) > 0 {
		return fmt.Sprintf("append %d events (%s…) to session %s", len(entries), entries[0].Type, session)
	}
	return "append usage to session " + session
}

// encodeEntries checks entries and usage for session and encodes the
// entries' data: the events appendInTx stores (their seq and time unset).
func (s *Store) encodeEntries(op, session string, entries []Entry, usage []Usage) ([]Event, error) {
	evs := make([]Event, len(entries))
	for i, e := range entries {
		if e.Type == "" {
			return nil, s.fail(op, errors.New("empty event type"))
		}
		raw, err := EncodeData(e.Data)
		if err != nil {
			return nil, s.fail(op, fmt.Errorf("%s: %w", e.Type, err))
		}
		evs[i] = Event{Session: session, Type: e.Type, Data: raw, Value: e.Value}
	}
	for _, u := range usage {
		if u.Session != session {
			return nil, s.fail(op, fmt.Errorf("usage of session %s given with the events of session %s", u.Session, session))
		}
		if err := checkUsage(u); err != nil {
			return nil, s.fail(op, err)
		}
	}
	return evs, nil
}

// appendStmts are the statements appendInTx runs for evs and usage.
func appendStmts(evs []Event, usage []Usage) []string {
	stmts := []string{sessionExistsSQL}
	if len(evs) > 0 {
		stmts = []string{appendEventSQL}
	}
	if len(usage) > 0 {
		stmts = append(stmts, insertUsageSQL)
	}
	return stmts
}

// appendInTx stores evs, each given the next seq of session and the time
// now, and the usage rows, in tx; the session must exist.
func (s *Store) appendInTx(ctx context.Context, tx *sql.Tx, session string, evs []Event, usage []Usage) error {
	now := time.Now().UTC()
	stmt := s.txStmt(ctx, tx, appendEventSQL) // nil: PostgreSQL
	for i := range evs {
		ev := &evs[i]
		ev.Session, ev.Time = session, now
		var row *sql.Row
		switch {
		case stmt != nil:
			row = stmt.QueryRowContext(ctx, session, now.UnixNano(), ev.Type, textOf(ev.Data))
		case s.pg:
			row = tx.QueryRowContext(ctx, pgAppendSQL, session, now.UnixNano(), ev.Type, textOf(ev.Data))
		default:
			row = tx.QueryRowContext(ctx, appendEventSQL, session, now.UnixNano(), ev.Type, textOf(ev.Data))
		}
		err := row.Scan(&ev.Seq)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("session")
		}
		if err != nil {
			return err
		}
	}
	if len(usage) > 0 && len(evs) == 0 {
		if err := s.sessionExists(ctx, tx, session); err != nil {
			return err
		}
	}
	for _, u := range usage {
		if err := s.insertUsage(ctx, tx, u); err != nil {
			return err
		}
	}
	return nil
}

// textOf is raw as a string without copying it: the drivers copy a bound
// string before the statement returns, and raw is not changed meanwhile.
func textOf(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	return unsafe.String(&raw[0], len(raw))
}
