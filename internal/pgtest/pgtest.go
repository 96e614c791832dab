// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema of the database that $HARNESS_TEST_POSTGRES names (scripts/test.sh
// starts a throwaway cluster and sets it), dropped when the test ends.
// Without it the test is skipped, saying why.
package pgtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Env is the variable that names the test database.
const Env = "HARNESS_TEST_POSTGRES"

// URL returns the URL of a fresh, empty schema (its search_path) of the
// test database, dropped with everything in it when t ends. It skips t when
// there is no test database.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		t.Skipf("no PostgreSQL to test against: set %s to a database URL (scripts/test.sh starts a throwaway cluster and sets it)", Env)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if err := exec(base, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create a schema in the test database (%s): %v", Env, err)
	}
	t.Cleanup(func() {
		if err := exec(base, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// exec runs stmt on a connection of its own, closed before it returns (no
// pool outlives a test: the packages check for leaked goroutines).
func exec(url, stmt string) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(stmt)
	return err
}
