package session

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations[i] brings the schema from version i to i+1. Append only: a
// released migration is never edited, a change is a new migration.
//
// Times are Unix nanoseconds (UTC): they sort, and compare, as integers.
var migrations = [][]string{
	{ // 1: sessions, events, usage, actions
		`CREATE TABLE sessions (
			id          TEXT PRIMARY KEY,
			agent       TEXT NOT NULL,
			model       TEXT NOT NULL,
			config_path TEXT NOT NULL,
			workspace   TEXT NOT NULL,
			status      TEXT NOT NULL,
			started_at  INTEGER NOT NULL,
			ended_at    INTEGER,
			turns       INTEGER NOT NULL DEFAULT 0
		) STRICT`,
		`CREATE INDEX sessions_started ON sessions (started_at)`,
		`CREATE TABLE events (
			session TEXT NOT NULL REFERENCES sessions (id),
			seq     INTEGER NOT NULL,
			time    INTEGER NOT NULL,
			type    TEXT NOT NULL,
			data    TEXT NOT NULL,
			UNIQUE (session, seq)
		) STRICT`,
		`CREATE TABLE usage (
			id                INTEGER PRIMARY KEY,
			session           TEXT NOT NULL REFERENCES sessions (id),
			turn              INTEGER NOT NULL,
			model             TEXT NOT NULL,
			prompt_tokens     INTEGER NOT NULL,
			completion_tokens INTEGER NOT NULL,
			cache_hit_tokens  INTEGER NOT NULL,
			cache_miss_tokens INTEGER NOT NULL,
			reasoning_tokens  INTEGER NOT NULL,
			cost_usd          REAL NOT NULL,
			recorded_at       INTEGER NOT NULL
		) STRICT`,
		`CREATE INDEX usage_session ON usage (session)`,
		`CREATE TABLE actions (
			id         TEXT PRIMARY KEY,
			session    TEXT NOT NULL REFERENCES sessions (id),
			call_id    TEXT NOT NULL,
			tool       TEXT NOT NULL,
			kind       TEXT NOT NULL,
			summary    TEXT NOT NULL,
			arguments  TEXT,
			status     TEXT NOT NULL,
			decided_by TEXT NOT NULL DEFAULT '',
			rule       TEXT NOT NULL DEFAULT '',
			result     TEXT,
			created_at INTEGER NOT NULL,
			decided_at INTEGER
		) STRICT`,
		`CREATE INDEX actions_session ON actions (session, created_at)`,
		`CREATE INDEX actions_status ON actions (status, created_at)`,
	},
	{ // 2: the store is shared by every workspace; a session keeps the hash of its configuration
		`ALTER TABLE sessions ADD COLUMN config_hash TEXT NOT NULL DEFAULT ''`,
		`CREATE INDEX sessions_workspace ON sessions (workspace, started_at)`,
	},
	{ // 3: the lease of the runner that holds a session (lease.go)
		`ALTER TABLE sessions ADD COLUMN lease_owner TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE sessions ADD COLUMN lease_pid INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE sessions ADD COLUMN lease_host TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE sessions ADD COLUMN lease_heartbeat INTEGER NOT NULL DEFAULT 0`,
	},
	{ // 4: the machine a session runs on, so that an approval elsewhere knows whether it can execute (docs/scale.md)
		`ALTER TABLE sessions ADD COLUMN host TEXT NOT NULL DEFAULT ''`,
	},
	{ // 5: the keys of writes done at most once (AppendAllOnce, Claim): a retried Temporal activity writes nothing twice
		`CREATE TABLE once_keys (
			session TEXT NOT NULL REFERENCES sessions (id),
			key     TEXT NOT NULL,
			PRIMARY KEY (session, key)
		) STRICT, WITHOUT ROWID`,
	},
}

// schemaVersion is the version this build writes.
func schemaVersion() int { return len(migrations) }

// migrate brings the schema up to date. A store that is already current is
// only read, so a read-only file opens fine: one statement reads its
// version, and no DDL runs.
func (s *Store) migrate(ctx context.Context) error {
	v, err := currentVersion(ctx, s.db)
	if err != nil {
		return s.fail("read schema version", err)
	}
	if err := checkVersion(v); err != nil {
		return s.fail("open", err)
	}
	if v == schemaVersion() {
		return nil
	}
	if s.readOnly {
		return s.fail("open", fmt.Errorf("the store has schema version %d, older than this harness's %d, and it is read-only: open it once with write access to upgrade it", v, schemaVersion()))
	}
	return s.write(ctx, "migrate schema", func(tx *sql.Tx) error {
		// Another process may have migrated between the read above and the
		// write lock taken by this transaction.
		v, err := readVersion(ctx, tx)
		if err != nil {
			return err
		}
		if err := checkVersion(v); err != nil {
			return err
		}
		if v == 0 {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_version (
				id      INTEGER PRIMARY KEY CHECK (id = 1),
				version INTEGER NOT NULL
			) STRICT`); err != nil {
				return fmt.Errorf("create schema_version: %w", err)
			}
		}
		if err := applyMigrations(ctx, tx, migrations, v); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO schema_version (id, version) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version`, schemaVersion())
		return err
	})
}

// applyMigrations runs the migrations of list that bring the schema from
// version v to the last (migrations, or pgMigrations).
func applyMigrations(ctx context.Context, tx *sql.Tx, list [][]string, v int) error {
	for i := v; i < len(list); i++ {
		for _, stmt := range list[i] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
	}
	return nil
}

func checkVersion(v int) error {
	if v > schemaVersion() {
		return fmt.Errorf("schema version %d is newer than this harness understands (%d): upgrade harness", v, schemaVersion())
	}
	return nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// currentVersion is readVersion in one statement when the store has a
// schema_version table, as every store but a new file has: each open of a
// store reads its version, and this is all that open runs besides the
// connection's pragmas and the preparing of its statements.
func currentVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, `SELECT version FROM schema_version WHERE id = 1`).Scan(&v); err == nil {
		return v, nil
	}
	// No such table (a new file), or an error readVersion reports.
	return readVersion(ctx, q)
}

// readVersion returns 0 for a database without a schema_version table.
func readVersion(ctx context.Context, q queryer) (int, error) {
	var n int
	err := q.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`).Scan(&n)
	if err != nil || n == 0 {
		return 0, err
	}
	var v int
	if err := q.QueryRowContext(ctx, `SELECT version FROM schema_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema_version: %w", err)
	}
	return v, nil
}
