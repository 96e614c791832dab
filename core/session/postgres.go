package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// A PostgreSQL store is one database shared by many machines (see
// docs/scale.md). It keeps the records and the semantics of the SQLite
// store; what differs is how writers are kept apart:
//
//   - no process-wide write gate: the pool's connections write at once, and
//     rows are what is locked;
//   - an event's seq comes from a counter on its session row, claimed by
//     the same statement that inserts the event (UPDATE … RETURNING waits
//     for, then re-reads, the row another writer holds), so appends to one
//     session are serialized by the database, gap-free, in one round trip;
//   - schema migrations run under an advisory lock, so that machines that
//     upgrade at once migrate once.

// IsPostgresURL says whether a --store value names a PostgreSQL database.
func IsPostgresURL(v string) bool {
	scheme, _, ok := strings.Cut(v, "://")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		return true
	}
	return false
}

// pgMaxConns bounds the connections one process opens: a fleet of harness
// processes shares the server's max_connections (100 by default).
const pgMaxConns = 4

// pgConnectTimeout is how long opening the store waits for the server.
const pgConnectTimeout = 10 * time.Second

// openPostgres opens the store in the PostgreSQL database of url and brings
// its schema up to date.
func openPostgres(url string) (*Store, error) {
	s := &Store{path: url, name: redact(url), pg: true}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may quote the URL, password included.
		return nil, s.fail("open", errors.New("the URL is not a valid PostgreSQL connection URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=…)"))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > pgConnectTimeout {
		cfg.ConnConfig.ConnectTimeout = pgConnectTimeout
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = pgMaxConns
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgConnectTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.fail("open", err)
	}
	s.pool = pool
	s.db = stdlib.OpenDBFromPool(pool)
	if err := s.db.PingContext(ctx); err != nil {
		s.closeDB()
		return nil, s.fail("open", err)
	}
	if err := s.migratePostgres(ctx); err != nil {
		s.closeDB()
		return nil, err
	}
	return s, nil
}

// pgMigrations[i] brings a PostgreSQL store from version i to i+1; append
// only, like migrations. Version 1 is SQLite's version 4 at once, plus the
// seq counter of each session.
var pgMigrations = [][]string{
	{
		`CREATE TABLE sessions (
			id              TEXT PRIMARY KEY,
			agent           TEXT NOT NULL,
			model           TEXT NOT NULL,
			config_path     TEXT NOT NULL,
			config_hash     TEXT NOT NULL DEFAULT '',
			workspace       TEXT NOT NULL,
			host            TEXT NOT NULL DEFAULT '',
			status          TEXT NOT NULL,
			started_at      BIGINT NOT NULL,
			ended_at        BIGINT,
			turns           INTEGER NOT NULL DEFAULT 0,
			last_seq        BIGINT NOT NULL DEFAULT 0,
			lease_owner     TEXT NOT NULL DEFAULT '',
			lease_pid       INTEGER NOT NULL DEFAULT 0,
			lease_host      TEXT NOT NULL DEFAULT '',
			lease_heartbeat BIGINT NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX sessions_started ON sessions (started_at)`,
		`CREATE INDEX sessions_workspace ON sessions (workspace, started_at)`,
		`CREATE TABLE events (
			session TEXT NOT NULL REFERENCES sessions (id),
			seq     BIGINT NOT NULL,
			time    BIGINT NOT NULL,
			type    TEXT NOT NULL,
			data    TEXT NOT NULL,
			PRIMARY KEY (session, seq)
		)`,
		`CREATE TABLE usage (
			id                BIGSERIAL PRIMARY KEY,
			session           TEXT NOT NULL REFERENCES sessions (id),
			turn              INTEGER NOT NULL,
			model             TEXT NOT NULL,
			prompt_tokens     BIGINT NOT NULL,
			completion_tokens BIGINT NOT NULL,
			cache_hit_tokens  BIGINT NOT NULL,
			cache_miss_tokens BIGINT NOT NULL,
			reasoning_tokens  BIGINT NOT NULL,
			cost_usd          DOUBLE PRECISION NOT NULL,
			recorded_at       BIGINT NOT NULL
		)`,
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
			created_at BIGINT NOT NULL,
			decided_at BIGINT
		)`,
		`CREATE INDEX actions_session ON actions (session, created_at)`,
		`CREATE INDEX actions_status ON actions (status, created_at)`,
	},
	{ // 2: SQLite's 5, the keys of writes done at most once
		`CREATE TABLE once_keys (
			session TEXT NOT NULL REFERENCES sessions (id),
			key     TEXT NOT NULL,
			PRIMARY KEY (session, key)
		)`,
	},
}

// pgMigrationLock is the key of the advisory lock migrations hold: any
// fixed number, the same in every harness.
const pgMigrationLock = 0x6861726e657373 // "harness"

func (s *Store) migratePostgres(ctx context.Context) error {
	return s.write(ctx, "migrate schema", func(tx *sql.Tx) error {
		// Held until the transaction ends: a second machine that opens
		// the store now waits here, then finds the schema current.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgMigrationLock)); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pg_tables
			WHERE schemaname = current_schema() AND tablename = 'schema_version'`).Scan(&n); err != nil {
			return err
		}
		v := 0
		if n == 0 {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_version (
				id      INTEGER PRIMARY KEY CHECK (id = 1),
				version INTEGER NOT NULL
			)`); err != nil {
				return fmt.Errorf("create schema_version: %w", err)
			}
		} else if err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version WHERE id = 1`).Scan(&v); err != nil {
			return fmt.Errorf("read schema_version: %w", err)
		}
		if v > len(pgMigrations) {
			return fmt.Errorf("schema version %d is newer than this harness understands (%d): upgrade harness", v, len(pgMigrations))
		}
		if err := applyMigrations(ctx, tx, pgMigrations, v); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_version (id, version) VALUES (1, $1)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version`, len(pgMigrations))
		return err
	})
}

// pgAppendSQL claims the session's next seq and inserts the event in one
// statement, committed on its own (no transaction around it).
const pgAppendSQL = `WITH n AS (
		UPDATE sessions SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq
	)
	INSERT INTO events (session, seq, time, type, data)
	SELECT $1, last_seq, $2, $3, $4 FROM n
	RETURNING seq`

// rebinds caches the PostgreSQL form of each query.
var rebinds sync.Map

// q returns query for the store's database: SQLite's ?N and ? placeholders
// become PostgreSQL's $N.
func (s *Store) q(query string) string {
	if !s.pg {
		return query
	}
	if r, ok := rebinds.Load(query); ok {
		return r.(string)
	}
	r := rebind(query)
	rebinds.Store(query, r)
	return r
}

// rebind rewrites the placeholders of query outside quoted strings: ?N is
// $N, and each bare ? is the next number.
func rebind(query string) string {
	var b strings.Builder
	next, quoted := 0, false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			if j > i+1 {
				b.WriteString("$" + query[i+1:j])
				i = j - 1
				continue
			}
			next++
			b.WriteString("$" + strconv.Itoa(next))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pgRetryable says whether a PostgreSQL transaction failed only because of
// another transaction and may be run again.
func pgRetryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// pgHint explains a PostgreSQL failure; "" when it has nothing to add.
func pgHint(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "28P01" || pe.Code == "28000":
			return "the server refused the user or password of the URL"
		case pe.Code == "3D000":
			return "the database of the URL does not exist: create it (createdb NAME) or fix the URL"
		case pe.Code == "42501":
			return "the user of the URL may not do this: grant it CREATE and USAGE on the schema, or ask the database's owner"
		case strings.HasPrefix(pe.Code, "53"):
			return "the database server is out of resources (connections, disk or memory)"
		case strings.HasPrefix(pe.Code, "57P"):
			return "the database server is shutting down or restarting; what was committed before is intact: retry (or --resume the session) once it is back"
		}
		return ""
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed") ||
		strings.Contains(err.Error(), "unexpected EOF") || strings.Contains(err.Error(), "broken pipe") || strings.Contains(err.Error(), "connection reset") {
		return "the database server is unreachable: check that it is running and that the URL's host and port are right; what was committed before is intact: --resume the session once it is back"
	}
	return ""
}

// appendPostgres commits ev with the next seq of its session, in one
// statement.
func (s *Store) appendPostgres(ctx context.Context, op string, ev *Event) error {
	ev.Time = time.Now().UTC()
	err := s.db.QueryRowContext(ctx, pgAppendSQL, ev.Session, ev.Time.UnixNano(), ev.Type, string(ev.Data)).Scan(&ev.Seq)
	if errors.Is(err, sql.ErrNoRows) {
		err = notFound("session")
	}
	if err != nil {
		*ev = Event{}
		return s.fail(op, err)
	}
	return nil
}
