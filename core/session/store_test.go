package session

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness-agent/harness/internal/pgtest"
)

func TestOpenCreatesStore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "harness")
	s, err := Open(filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o700 {
		t.Errorf("%s mode = %o, want 700", dir, got)
	}
	if want := filepath.Join(dir, StoreFile); s.Path() != want {
		t.Errorf("Path() = %s, want %s", s.Path(), want)
	}
	if _, err := os.Stat(s.Path()); err != nil {
		t.Error(err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(tmp, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		open func() (*Store, error)
		want []string
	}{
		{"folder is a file", func() (*Store, error) { return Open(filepath.Join(file, StoreFile)) }, []string{file, "not a directory", EnvStateDir}},
		{"missing folder", func() (*Store, error) { return OpenFile(filepath.Join(tmp, "no", "dir", "h.db")) }, []string{"h.db", "cannot be opened"}},
		{"not a database", func() (*Store, error) { return OpenFile(garbage) }, []string{garbage, "not a harness session store"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.open()
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestPragmas(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	tests := []struct {
		pragma, want string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"journal_size_limit", fmt.Sprint(walLimit)},
	}
	for _, tt := range tests {
		var got string
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("PRAGMA %s = %s, want %s", tt.pragma, got, tt.want)
		}
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := tempStore(t)
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	info := newSession(t, s)
	if _, err := s.Append(ctx, info.ID, "session.started", map[string]string{"agent": "coder"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := readVersion(ctx, s.db)
	if err != nil || v != schemaVersion() {
		t.Errorf("schema version = %d, %v; want %d", v, err, schemaVersion())
	}
	evs, err := s.Events(ctx, info.ID, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events after reopen = %v, %v", evs, err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	ws := tempStore(t)
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ws)
	if err == nil {
		s.Close()
		t.Fatal("a store with a newer schema opened")
	}
	if !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Errorf("error = %v", err)
	}
}

// The path travels to SQLite inside a file: URI; characters that mean
// something in a URI must reach the file system unchanged.
func TestOpenPathNeedingEscapes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my proj?v=1#x%20&mode=ro")
	s, err := Open(filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info := newSession(t, s)
	if _, err := s.Append(context.Background(), info.ID, "session.started", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, StoreFile)); err != nil {
		t.Errorf("store not where expected: %v", err)
	}
}

// Machines that open a new PostgreSQL store at once migrate it once (the
// advisory lock): every open succeeds and the schema is current.
func TestPostgresConcurrentMigration(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	const opens = 6
	stores := make(chan *Store, opens)
	errs := make(chan error, opens)
	var wg sync.WaitGroup
	for range opens {
		wg.Go(func() {
			s, err := Open(url)
			if err != nil {
				errs <- err
				return
			}
			stores <- s
		})
	}
	wg.Wait()
	close(stores)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for s := range stores {
		var v int
		if err := s.db.QueryRow(`SELECT version FROM schema_version WHERE id = 1`).Scan(&v); err != nil || v != len(pgMigrations) {
			t.Errorf("schema version %d, %v; want %d", v, err, len(pgMigrations))
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
	// A newer harness's schema is refused, saying what to do.
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(url); err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") || !strings.Contains(err.Error(), "upgrade harness") {
		t.Errorf("opening a newer schema: %v", err)
	}
}

func TestRebind(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`SELECT ? , ?`:                          `SELECT $1 , $2`,
		`WHERE (?1 = '' OR a = ?1) AND b = ?2`:  `WHERE ($1 = '' OR a = $1) AND b = $2`,
		`SET x = '?' WHERE id = ?`:              `SET x = '?' WHERE id = $1`,
		`VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`: `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

// A store written by an older harness, at each schema version, is brought
// up to date when it is opened, keeping its records; opening it again
// changes nothing.
func TestOlderSchemaMigrated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for from := 1; from < schemaVersion(); from++ {
		t.Run(fmt.Sprintf("from_%d", from), func(t *testing.T) {
			t.Parallel()
			path := tempStore(t)
			db, err := sql.Open("sqlite", dsn(path, false))
			if err != nil {
				t.Fatal(err)
			}
			steps := []string{`CREATE TABLE schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL) STRICT`}
			for _, m := range migrations[:from] {
				steps = append(steps, m...)
			}
			steps = append(steps,
				fmt.Sprintf(`INSERT INTO schema_version (id, version) VALUES (1, %d)`, from),
				`INSERT INTO sessions (id, agent, model, config_path, workspace, status, started_at, ended_at, turns)
					VALUES ('s-old', 'coder', 'flash', '/cfg/agent.hcl', '/ws', 'completed', 1, 2, 1)`,
				`INSERT INTO events (session, seq, time, type, data) VALUES ('s-old', 1, 1, 'session.started', '{}')`)
			for _, q := range steps {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				s, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				if v, err := readVersion(ctx, s.db); err != nil || v != schemaVersion() {
					t.Errorf("schema version = %d, %v; want %d", v, err, schemaVersion())
				}
				if evs, err := s.Events(ctx, "s-old", 0); err != nil || len(evs) != 1 {
					t.Errorf("events of the old session = %v, %v", evs, err)
				}
				info := newSession(t, s) // the columns of every migration
				if _, err := s.AppendAllOnce(ctx, info.ID, "k", []Entry{{Type: "session.started"}}); err != nil {
					t.Error(err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
