package session

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// SessionInfo describes one run. Tokens (prompt + completion) and CostUSD
// are summed from the usage records; Turns is the count given to
// EndSession, or while the session runs the highest turn metered so far.
type SessionInfo struct {
	ID         string
	Agent      string
	Model      string
	ConfigPath string // absolute path of the configuration file, never its values
	// ConfigHash identifies the configuration the session ran under (see
	// config.Hash); "" for a session recorded before harness kept it.
	ConfigHash string
	Workspace  string
	// Host is the machine the session last ran on (Hostname there): its
	// workspace is on that machine.
	Host      string
	Status    string // running, or an end status (see EndSession)
	StartedAt time.Time
	EndedAt   time.Time // zero while running
	Turns     int
	Tokens    int64
	CostUSD   float64
	// Lease is the hold of the runner on the session (zero: none). Give
	// one to CreateSession to hold the new session.
	Lease Lease
}

// Session statuses. A session is created running and ended with one of the
// others, the statuses of DESIGN §8 session.ended (the agent loop's
// outcomes). A running session whose lease is not live reads as
// StatusAbandoned.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusLimit       = "limit"
	StatusError       = "error"
	StatusInterrupted = "interrupted"
	StatusPending     = "pending_approval"
)

var endStatuses = map[string]bool{
	StatusCompleted:   true,
	StatusLimit:       true,
	StatusError:       true,
	StatusInterrupted: true,
	StatusPending:     true,
}

const insertSessionSQL = `INSERT INTO sessions
		(id, agent, model, config_path, config_hash, workspace, host, status, started_at,
		 lease_owner, lease_pid, lease_host, lease_heartbeat)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`

// CreateSession records a new running session. The store sets ID, Status
// and EndedAt (values the caller put there are ignored); StartedAt is now
// unless given.
func (s *Store) CreateSession(ctx context.Context, info SessionInfo) (SessionInfo, error) {
	info, _, err := s.CreateSessionWith(ctx, info)
	return info, err
}

// CreateSessionWith is CreateSession that also appends entries to the new
// session, in the same transaction: the session and its first events
// (session.started) are committed together or not at all. It returns the
// events as stored.
func (s *Store) CreateSessionWith(ctx context.Context, info SessionInfo, entries ...Entry) (SessionInfo, []Event, error) {
	if info.ConfigPath != "" && !filepath.IsAbs(info.ConfigPath) {
		return SessionInfo{}, nil, s.fail("create session",
			fmt.Errorf("config path %q is not absolute", info.ConfigPath))
	}
	if info.StartedAt.IsZero() {
		info.StartedAt = time.Now()
	}
	info.StartedAt = info.StartedAt.UTC()
	info.Status = StatusRunning
	info.EndedAt = time.Time{}
	info.Lease.Heartbeat = time.Time{}
	if info.Lease.Owner != "" {
		info.Lease.Heartbeat = fromNanos(time.Now().UnixNano())
	}
	if info.Host == "" {
		info.Host = info.Lease.Host
	}
	if info.Host == "" {
		info.Host = Hostname()
	}
	evs, err := s.encodeEntries("create session", "", entries, nil)
	if err != nil {
		return SessionInfo{}, nil, err
	}
	stmts := []string{insertSessionSQL}
	if len(evs) > 0 {
		stmts = append(stmts, appendEventSQL)
	}
	err = s.writeWith(ctx, "create session", stmts, func(tx *sql.Tx) error {
		created := false
		for range idAttempts {
			info.ID = newSessionID(info.StartedAt)
			res, err := s.txExec(ctx, tx, insertSessionSQL,
				info.ID, info.Agent, info.Model, info.ConfigPath, info.ConfigHash, info.Workspace, info.Host,
				info.Status, info.StartedAt.UnixNano(),
				info.Lease.Owner, info.Lease.PID, info.Lease.Host, heartbeatNanos(info.Lease))
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if created = n == 1; created {
				break
			}
		}
		if !created {
			return fmt.Errorf("no free session id after %d attempts", idAttempts)
		}
		return s.appendInTx(ctx, tx, info.ID, evs, nil)
	})
	if err != nil {
		return SessionInfo{}, nil, err
	}
	return info, evs, nil
}

func heartbeatNanos(l Lease) int64 {
	if l.Owner == "" {
		return 0
	}
	return l.Heartbeat.UnixNano()
}

const sessionColumns = `s.id, s.agent, s.model, s.config_path, s.config_hash, s.workspace, s.host, s.status,
	s.started_at, s.ended_at,
	CASE WHEN s.turns > coalesce(u.max_turn, 0) THEN s.turns ELSE coalesce(u.max_turn, 0) END,
	CAST(coalesce(u.tokens, 0) AS BIGINT), coalesce(u.cost, 0),
	s.lease_owner, s.lease_pid, s.lease_host, s.lease_heartbeat
	FROM sessions s LEFT JOIN (
		SELECT session, max(turn) AS max_turn,
			sum(prompt_tokens + completion_tokens) AS tokens, sum(cost_usd) AS cost
		FROM usage GROUP BY session
	) u ON u.session = s.id`

// Session returns the session whose id is id or, failing that, the only one
// whose id starts with id. An unknown id is an error wrapping ErrNotFound,
// a prefix that matches several one wrapping ErrAmbiguous.
func (s *Store) Session(ctx context.Context, id string) (SessionInfo, error) {
	full, err := s.resolveID(ctx, "sessions", "session", id)
	if err != nil {
		return SessionInfo{}, err
	}
	info, err := scanSession(s.db.QueryRowContext(ctx, s.q(`SELECT `+sessionColumns+` WHERE s.id = ?`), full))
	if err != nil {
		return SessionInfo{}, s.fail("read session "+full, err)
	}
	return info, nil
}

// ListSessions returns every session, newest first.
func (s *Store) ListSessions(ctx context.Context) ([]SessionInfo, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+sessionColumns+` ORDER BY s.started_at DESC, s.id DESC`))
	if err != nil {
		return nil, s.fail("list sessions", err)
	}
	defer rows.Close()
	var out []SessionInfo
	for rows.Next() {
		info, err := scanSession(rows)
		if err != nil {
			return nil, s.fail("list sessions", err)
		}
		out = append(out, info)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("list sessions", err)
	}
	return out, nil
}

const endSessionSQL = `UPDATE sessions SET status = ?, turns = ?, ended_at = ?,
		lease_owner = '', lease_pid = 0, lease_host = '', lease_heartbeat = 0
	WHERE id = ? AND status = ?`

// EndSession ends the running session id (the full id) with status, one of
// completed, limit, error, interrupted or pending_approval, after turns
// turns. Ending a session that is not running is an error naming its status.
func (s *Store) EndSession(ctx context.Context, id, status string, turns int) error {
	_, err := s.EndSessionWith(ctx, id, status, turns, nil)
	return err
}

// EndSessionWith is EndSession that first appends entries and usage (as
// AppendAll does), in the same transaction: a run's last events
// (session.ended) and its end are committed together. When the session is
// not running the events are committed all the same, and returned with the
// error; when the commit fails, nothing is.
func (s *Store) EndSessionWith(ctx context.Context, id, status string, turns int, entries []Entry, usage ...Usage) ([]Event, error) {
	op := "end session " + id
	if !endStatuses[status] {
		return nil, s.fail(op, fmt.Errorf("unknown end status %q (want completed, limit, error, interrupted or pending_approval)", status))
	}
	evs, err := s.encodeEntries(op, id, entries, usage)
	if err != nil {
		return nil, err
	}
	stmts := []string{endSessionSQL}
	if len(evs) > 0 || len(usage) > 0 {
		stmts = append(stmts, appendStmts(evs, usage)...)
	}
	var notRunning error
	err = s.writeWith(ctx, op, stmts, func(tx *sql.Tx) error {
		notRunning = nil
		if err := s.appendInTx(ctx, tx, id, evs, usage); err != nil {
			return err
		}
		res, err := s.txExec(ctx, tx, endSessionSQL, status, turns, time.Now().UnixNano(), id, StatusRunning)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		current, err := s.currentStatus(ctx, tx, "sessions", id)
		if err != nil {
			return err
		}
		if len(evs) == 0 && len(usage) == 0 {
			return fmt.Errorf("session already ended with status %s", current)
		}
		// The events stay: they happened. The end is refused.
		notRunning = s.fail(op, fmt.Errorf("session already ended with status %s", current))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return evs, notRunning
}

// ReopenSession marks the session id (the full id) running again under
// lease, for a resumed run; it may have ended with any status, or not at
// all when the process that ran it died (abandoned). A session that a live
// runner holds is refused with a *HeldError. configHash is the hash of the
// configuration it continues under; "" keeps the recorded one.
func (s *Store) ReopenSession(ctx context.Context, id, configHash string, lease Lease) error {
	return s.write(ctx, "reopen session "+id, func(tx *sql.Tx) error {
		if err := s.take(ctx, tx, id, lease); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE sessions SET status = ?, ended_at = NULL,
			config_hash = CASE WHEN CAST(? AS TEXT) = '' THEN config_hash ELSE ? END,
			host = CASE WHEN CAST(? AS TEXT) = '' THEN host ELSE ? END WHERE id = ?`),
			StatusRunning, configHash, configHash, lease.Host, lease.Host, id)
		return err
	})
}

// currentStatus reads the status column of the record id in table; a
// missing record is ErrNotFound.
func (s *Store) currentStatus(ctx context.Context, q queryer, table, id string) (string, error) {
	var status string
	err := q.QueryRowContext(ctx, s.q(`SELECT status FROM `+table+` WHERE id = ?`), id).Scan(&status)
	if err == sql.ErrNoRows {
		return "", notFound(strings.TrimSuffix(table, "s"))
	}
	return status, err
}

type scanner interface {
	Scan(dest ...any) error
}

func scanSession(r scanner) (SessionInfo, error) {
	var (
		info      SessionInfo
		started   int64
		ended     sql.NullInt64
		heartbeat int64
	)
	err := r.Scan(&info.ID, &info.Agent, &info.Model, &info.ConfigPath, &info.ConfigHash, &info.Workspace, &info.Host, &info.Status,
		&started, &ended, &info.Turns, &info.Tokens, &info.CostUSD,
		&info.Lease.Owner, &info.Lease.PID, &info.Lease.Host, &heartbeat)
	if err != nil {
		return SessionInfo{}, err
	}
	if heartbeat != 0 {
		info.Lease.Heartbeat = fromNanos(heartbeat)
	}
	if info.Status == StatusRunning && !info.Lease.Live(time.Now()) {
		info.Status = StatusAbandoned
	}
	info.StartedAt = fromNanos(started)
	if ended.Valid {
		info.EndedAt = fromNanos(ended.Int64)
	}
	return info, nil
}

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }
