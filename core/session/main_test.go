package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/internal/pgtest"
	"github.com/harness-agent/harness/internal/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" || os.Getenv(fleetEnvURL) != "" {
		// The crash test's writer child: it is killed, never checked for leaks.
		os.Exit(m.Run())
	}
	testkit.Main(m)
}

// tempStore is a store file path in a fresh folder.
func tempStore(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), StoreFile)
}

// newStore opens a store in a fresh folder, closed with the test.
func newStore(t testing.TB) *Store {
	t.Helper()
	return openForTest(t, tempStore(t))
}

// openForTest opens the store at path (a file or a PostgreSQL URL), closed
// with the test.
func openForTest(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(path)
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

// eachStore runs f, in parallel subtests, against a fresh SQLite store and
// a fresh PostgreSQL store (pgtest: skipped, saying why, without a test
// database): the two implementations keep the same promises.
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

func newPostgresStore(t testing.TB) *Store {
	t.Helper()
	return openForTest(t, pgtest.URL(t))
}
