package session

import (
	"context"
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver of the schema helper
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		// The crash test's writer child: it is killed, never checked for leaks.
		os.Exit(m.Run())
	}
	goleak.VerifyTestMain(m)
}

// tempStore is a store file path in a fresh folder.
func tempStore(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), StoreFile)
}

// newStore opens a store in a fresh folder, closed with the test.
func newStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(tempStore(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// newSession creates a running session in s.
func newSession(t testing.TB, s *Store) SessionInfo {
	t.Helper()
	info, err := s.CreateSession(context.Background(), SessionInfo{
		Agent: "coder", Model: "flash", ConfigPath: "/cfg/agent.hcl", Workspace: "/ws", Lease: NewLease(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// EnvTestPostgres is the URL of a PostgreSQL database the tests may use
// (scripts/test.sh starts a throwaway cluster and sets it). Each store a
// test opens there lives in a schema of its own, dropped with the test.
const EnvTestPostgres = "HARNESS_TEST_POSTGRES"

// eachStore runs f, in parallel subtests, against a fresh SQLite store and
// a fresh PostgreSQL store: the two implementations keep the same promises.
func eachStore(t *testing.T, f func(t *testing.T, s *Store)) {
	t.Helper()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if name == "sqlite" {
				f(t, newStore(t))
				return
			}
			f(t, newPostgresStore(t))
		})
	}
}

var (
	pgAdminOnce sync.Once
	pgAdmin     *sql.DB
	pgAdminErr  error
)

// postgresURL returns the URL of a fresh, empty schema of the test
// database, dropped when t ends; it skips t when there is no test database.
func postgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvTestPostgres)
	if base == "" {
		t.Skipf("no PostgreSQL to test against: set %s to a database URL (scripts/test.sh starts a throwaway cluster and sets it)", EnvTestPostgres)
	}
	pgAdminOnce.Do(func() {
		pgAdmin, pgAdminErr = sql.Open("pgx", base)
	})
	if pgAdminErr != nil {
		t.Fatal(pgAdminErr)
	}
	schema := "t_" + randomHex(8)
	if _, err := pgAdmin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("create schema in %s: %v", Redact(base), err)
	}
	t.Cleanup(func() {
		if _, err := pgAdmin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

func newPostgresStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(postgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}
