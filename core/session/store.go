package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
)

const (
	// StoreDir is the folder, under a workspace, that holds the store.
	StoreDir = ".harness"
	// StoreFile is the database file inside StoreDir.
	StoreFile = "harness.db"

	// busyTimeoutMS is how long a write waits for another process that holds
	// the write lock (a second harness on the same workspace) before failing.
	busyTimeoutMS = 10000
)

// Store is the session store of one workspace. It is safe for concurrent use
// by many goroutines; several processes may open the same file at once.
type Store struct {
	db   *sql.DB
	path string
	// gate serializes this process's write transactions. SQLite allows one
	// writer at a time anyway; waiting here instead of in SQLite's busy
	// handler (which sleeps and polls) keeps concurrent appends fast, and the
	// wait honours the caller's context.
	gate chan struct{}
	// appendEvent is Append's statement, prepared once: parsing it took
	// most of an append's time.
	appendEvent *sql.Stmt
}

// Open opens the store of workspace, creating .harness/ (mode 0700, with a
// .gitignore that ignores everything in it) and .harness/harness.db when
// they are missing.
func Open(workspace string) (*Store, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("session store: workspace %q: %w", workspace, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("session store: workspace %s: %w", abs, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("session store: workspace %s is not a folder", abs)
	}
	dir := filepath.Join(abs, StoreDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session store: create %s: %w", dir, err)
	}
	if err := ensureGitignore(dir); err != nil {
		return nil, err
	}
	return OpenFile(filepath.Join(dir, StoreFile))
}

// ensureGitignore keeps the store out of version control. An existing file
// is left alone: the user may have edited it.
func ensureGitignore(dir string) error {
	p := filepath.Join(dir, ".gitignore")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("session store: create %s: %w", p, err)
	}
	_, werr := f.WriteString("*\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("session store: write %s: %w", p, werr)
	}
	return nil
}

// OpenFile opens the store in the database file path, creating the file (but
// not its folder) when it is missing, and brings its schema up to date.
func OpenFile(path string) (*Store, error) {
	return openFile(path, false)
}

// openFile opens path; readOnly opens it with SQLite's mode=ro, which the
// tests use to stand in for a file the process may not write.
func openFile(path string, readOnly bool) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session store %q: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(abs, readOnly))
	if err != nil {
		return nil, fmt.Errorf("session store %s: open: %w", abs, err)
	}
	s := &Store{db: db, path: abs, gate: make(chan struct{}, 1)}
	ctx := context.Background()
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, s.fail("open", err)
	}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if s.appendEvent, err = db.PrepareContext(ctx, appendEventSQL); err != nil {
		_ = db.Close()
		return nil, s.fail("open", err)
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

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes the store. Every write has already been committed.
func (s *Store) Close() error {
	_ = s.appendEvent.Close()
	if err := s.db.Close(); err != nil {
		return s.fail("close", err)
	}
	return nil
}

// FindWorkspace returns dir, or its nearest parent, that holds
// .harness/harness.db. When there is none the error wraps ErrNotFound.
func FindWorkspace(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find session store from %q: %w", dir, err)
	}
	for d := abs; ; {
		p := filepath.Join(d, StoreDir, StoreFile)
		st, err := os.Stat(p)
		switch {
		case err == nil && st.Mode().IsRegular():
			return d, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("find session store from %s: %w", abs, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no session store (%s) in %s or any parent folder: %w",
				filepath.Join(StoreDir, StoreFile), abs, ErrNotFound)
		}
		d = parent
	}
}

// write runs fn in one write transaction and commits it. Errors from fn are
// returned wrapped with op and the store's path.
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	select {
	case s.gate <- struct{}{}:
	case <-ctx.Done():
		return s.fail(op, ctx.Err())
	}
	defer func() { <-s.gate }()

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
