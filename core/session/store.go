package session

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// busyTimeoutMS is how long a write waits for another process that holds
// the write lock (another harness using the same store) before failing.
const busyTimeoutMS = 10000

// Store is the session store of one user: every workspace's sessions. It is
// safe for concurrent use by many goroutines; several processes may open
// the same file at once.
type Store struct {
	db   *sql.DB
	path string // the database file, or the PostgreSQL URL
	name string // path for messages: the URL without its password
	pg   bool   // a PostgreSQL store (postgres.go)
	pool *pgxpool.Pool
	// gate serializes this process's write transactions (SQLite only: a
	// PostgreSQL store locks rows, not the database). SQLite allows one
	// writer at a time anyway; waiting here instead of in SQLite's busy
	// handler (which sleeps and polls) keeps concurrent appends fast, and the
	// wait honours the caller's context.
	gate chan struct{}
	// stmts are the statements of the writes, each prepared on first use
	// and kept until Close (SQLite only: see writeWith). Parsing a
	// statement took most of an append's time.
	stmtMu   sync.Mutex
	stmts    map[string]*sql.Stmt
	readOnly bool // opened read-only: see OpenFile
}

// Open opens the store in the database file path (see Locator.StorePath),
// creating its folder (mode 0700: the store holds conversations) and the
// file when they are missing.
//
// A postgres:// or postgresql:// URL opens a PostgreSQL store instead: see
// postgres.go and docs/scale.md.
func Open(path string) (*Store, error) {
	if IsPostgresURL(path) {
		return openPostgres(path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session store %q: %w", path, err)
	}
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session store: create %s: %w; pass --state-dir DIR or set %s to a folder you can write", dir, err, EnvStateDir)
	}
	return OpenFile(abs)
}

// OpenFile opens the store in the database file path, creating the file (but
// not its folder) when it is missing, and brings its schema up to date. A
// store that this process may not write (a read-only mount, an immutable
// file, permissions) is opened read-only: everything can be read, and
// every write fails with an error that says why.
func OpenFile(path string) (*Store, error) {
	return openFile(path, readOnlyStore(path))
}

// openFile opens path; readOnly opens it with SQLite's mode=ro, which the
// tests use to stand in for a file the process may not write.
func openFile(path string, readOnly bool) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session store %q: %w", path, err)
	}
	db := sql.OpenDB(connector(dsn(abs, readOnly)))
	s := &Store{db: db, path: abs, name: abs, gate: make(chan struct{}, 1), readOnly: readOnly}
	ctx := context.Background()
	err = db.PingContext(ctx)
	if err != nil && readOnly {
		// Reading a WAL database needs its -shm file, which a read-only
		// folder cannot get: read the database file alone. Commits still in
		// a -wal file that no checkpoint moved in are not seen.
		_ = db.Close()
		db = sql.OpenDB(connector(dsn(abs, readOnly) + "&immutable=1"))
		s.db = db
		err = db.PingContext(ctx)
	}
	if err != nil {
		_ = db.Close()
		return nil, s.fail("open", err)
	}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if !readOnly {
		s.boundWAL(ctx)
	}
	return s, nil
}

// dsn builds a file: URI so that the path is passed to SQLite escaped and
// SQLite's own URI parameters (mode) apply. The pragmas are set on every
// connection the pool opens.
func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeoutMS))
	q.Set("_journal_mode", "WAL")
	// The log is truncated back to walLimit when it restarts after a
	// checkpoint: its size then says how much a checkpoint has not moved
	// into the database yet (boundWAL).
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walLimit))
	// NORMAL: in WAL mode a commit is in the log, handed to the kernel,
	// before Append returns, so it survives any crash of the process (kill
	// -9 included); the log is synced to the disk at checkpoints. FULL would
	// add an fsync per event (about 0.7 ms here, ~100 events per quickstart
	// run) to survive a power loss too: see docs/reliability.md.
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	// Every transaction here is a write transaction: taking the write lock at
	// BEGIN lets the busy timeout do its job instead of failing on a lock
	// upgrade.
	q.Set("_txlock", "immediate")
	q.Set("_error_rc", "1")
	if readOnly {
		q.Set("mode", "ro")
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

// Path is the absolute path of the database file, or the URL of a
// PostgreSQL store (with its password: pass it to Open, never print it; Name
// is for people).
func (s *Store) Path() string { return s.path }

// Name is where the store is, for messages: the file, or the URL without
// its password.
func (s *Store) Name() string { return s.name }

// File is the database file of a SQLite store, "" for a PostgreSQL store.
func (s *Store) File() string {
	if s.pg {
		return ""
	}
	return s.path
}

// Postgres says whether the store is a PostgreSQL database.
func (s *Store) Postgres() bool { return s.pg }

// Close closes the store. Every write has already been committed.
func (s *Store) Close() error {
	s.stmtMu.Lock()
	for _, st := range s.stmts {
		_ = st.Close()
	}
	s.stmts = nil
	s.stmtMu.Unlock()
	if err := s.closeDB(); err != nil {
		return s.fail("close", err)
	}
	return nil
}

func (s *Store) closeDB() error {
	err := s.db.Close()
	if s.pool != nil {
		s.pool.Close()
	}
	return err
}

// write runs fn in one write transaction and commits it. Errors from fn are
// returned wrapped with op and the store's path.
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	return s.writeWith(ctx, op, nil, fn)
}

// writeWith is write for an fn that runs queries with txExec, txQueryRow
// or txStmt: on SQLite each is prepared once per Store, before the
// transaction that first needs it begins (so on the connection the
// transaction then takes, without opening another), and reused by every
// later write. A session's commits run the same few statements again and
// again; preparing one cost about as much as running it.
func (s *Store) writeWith(ctx context.Context, op string, queries []string, fn func(tx *sql.Tx) error) error {
	if s.pg {
		var err error
		for range 5 {
			if err = s.writeOnce(ctx, op, fn); !pgRetryable(err) {
				break
			}
		}
		return err
	}
	select {
	case s.gate <- struct{}{}:
	case <-ctx.Done():
		return s.fail(op, ctx.Err())
	}
	defer func() { <-s.gate }()
	s.prepare(ctx, queries)
	return s.writeOnce(ctx, op, fn)
}

// prepare prepares those of queries that are not prepared yet. One that
// fails to prepare runs unprepared, and reports its error then.
func (s *Store) prepare(ctx context.Context, queries []string) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	for _, q := range queries {
		if s.stmts[q] != nil {
			continue
		}
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		if s.stmts == nil {
			s.stmts = make(map[string]*sql.Stmt)
		}
		s.stmts[q] = st
	}
}

// txStmt returns the prepared statement of query for tx, nil when it is
// not prepared (a PostgreSQL store, or query not given to writeWith).
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	s.stmtMu.Lock()
	st := s.stmts[query]
	s.stmtMu.Unlock()
	if st == nil {
		return nil
	}
	return tx.StmtContext(ctx, st)
}

// txExec runs query in tx, prepared when writeWith prepared it.
func (s *Store) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.txStmt(ctx, tx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, s.q(query), args...)
}

// txQueryRow queries one row in tx, prepared when writeWith prepared it.
func (s *Store) txQueryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := s.txStmt(ctx, tx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, s.q(query), args...)
}

func (s *Store) writeOnce(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(op, err)
	}
	if err := fn(tx); err != nil {
		// SQLite may have rolled back already (SQLITE_FULL does); the
		// rollback error then only says there is no transaction.
		_ = tx.Rollback()
		return s.fail(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(op, err)
	}
	return nil
}
