package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
)

// ImportLegacy copies into s the sessions of the legacy store at path (a
// workspace's .harness/harness.db, written by harness before the store
// moved out of the workspace) that s does not have yet, with their events,
// usage and actions, and returns how many it copied. Only the sessions
// that ran in the folder holding .harness/ are taken: a store checked into
// a repository elsewhere (or reached through a .harness symlink) records
// other workspaces, and its sessions are someone else's. The legacy file is
// opened read-only and never changed; a session already in s is never
// overwritten, so importing twice is harmless. A missing file imports
// nothing. Imported sessions have no configuration fingerprint.
//
// A PostgreSQL store imports nothing: a legacy store is one workspace's, on
// one machine; open it with --store PATH to read it.
func (s *Store) ImportLegacy(ctx context.Context, path string) (int, error) {
	if s.pg {
		return 0, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if abs == s.path {
		return 0, nil
	}
	op := "import legacy store " + abs
	select {
	case s.gate <- struct{}{}:
	case <-ctx.Done():
		return 0, s.fail(op, ctx.Err())
	}
	defer func() { <-s.gate }()

	// ATTACH holds for one connection: the whole import runs on one.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return 0, s.fail(op, err)
	}
	defer conn.Close()
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro"}
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS legacy`, u.String()); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE legacy`) }()

	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM legacy.sqlite_master WHERE type = 'table' AND name = 'sessions'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if n == 0 {
		return 0, nil
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, s.fail(op, err)
	}
	defer func() { _ = tx.Rollback() }()
	// The columns of schema version 1, the last a legacy store has.
	steps := []string{
		`CREATE TEMP TABLE imported AS SELECT id FROM legacy.sessions
			WHERE workspace IN (?, ?) AND id NOT IN (SELECT id FROM main.sessions)`,
		`INSERT INTO main.sessions (id, agent, model, config_path, workspace, status, started_at, ended_at, turns)
			SELECT id, agent, model, config_path, workspace, status, started_at, ended_at, turns
			FROM legacy.sessions WHERE id IN (SELECT id FROM temp.imported)`,
		`INSERT INTO main.events (session, seq, time, type, data)
			SELECT session, seq, time, type, data FROM legacy.events
			WHERE session IN (SELECT id FROM temp.imported) ORDER BY session, seq`,
		`INSERT INTO main.usage (session, turn, model, prompt_tokens, completion_tokens, cache_hit_tokens,
				cache_miss_tokens, reasoning_tokens, cost_usd, recorded_at)
			SELECT session, turn, model, prompt_tokens, completion_tokens, cache_hit_tokens,
				cache_miss_tokens, reasoning_tokens, cost_usd, recorded_at FROM legacy.usage
			WHERE session IN (SELECT id FROM temp.imported) ORDER BY id`,
		`INSERT INTO main.actions (id, session, call_id, tool, kind, summary, arguments, status, decided_by,
				rule, result, created_at, decided_at)
			SELECT id, session, call_id, tool, kind, summary, arguments, status, decided_by,
				rule, result, created_at, decided_at FROM legacy.actions
			WHERE session IN (SELECT id FROM temp.imported) AND id NOT IN (SELECT id FROM main.actions)`,
	}
	ws := filepath.Dir(filepath.Dir(abs))
	realWS := ws
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		realWS = r
	}
	for i, q := range steps {
		var args []any
		if i == 0 {
			args = []any{ws, realWS}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, fmt.Errorf("%s: %w", op, err)
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM temp.imported`).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE temp.imported`); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, s.fail(op, err)
	}
	return n, nil
}
