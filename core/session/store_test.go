package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenCreatesStore(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	dir := filepath.Join(ws, StoreDir)
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o700 {
		t.Errorf("%s mode = %o, want 700", dir, got)
	}
	gi, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || string(gi) != "*\n" {
		t.Errorf(".gitignore = %q, %v; want \"*\\n\"", gi, err)
	}
	if want := filepath.Join(dir, StoreFile); s.Path() != want {
		t.Errorf("Path() = %s, want %s", s.Path(), want)
	}
	if _, err := os.Stat(s.Path()); err != nil {
		t.Error(err)
	}
}

func TestOpenKeepsUserGitignore(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	dir := filepath.Join(ws, StoreDir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const mine = "*\n!notes.md\n"
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if gi, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(gi) != mine {
		t.Errorf(".gitignore rewritten to %q", gi)
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
		{"missing workspace", func() (*Store, error) { return Open(filepath.Join(tmp, "nope")) }, []string{"nope", "no such file"}},
		{"workspace is a file", func() (*Store, error) { return Open(file) }, []string{file, "not a folder"}},
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
	ws := t.TempDir()
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
	ws := t.TempDir()
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

func TestFindWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws := filepath.Join(root, "proj")
	nested := filepath.Join(ws, "a", "b", "c")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// A bare .harness folder without a database is not a store.
	if err := os.MkdirAll(filepath.Join(ws, "a", StoreDir), 0o700); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir, want string
	}{
		{"workspace itself", ws, ws},
		{"nested folder", nested, ws},
		{"past a .harness without a db", filepath.Join(ws, "a"), ws},
		{"relative path", mustRel(t, nested), ws},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FindWorkspace(tt.dir)
			if err != nil || got != tt.want {
				t.Errorf("FindWorkspace(%s) = %q, %v; want %q", tt.dir, got, err, tt.want)
			}
		})
	}

	t.Run("none", func(t *testing.T) {
		_, err := FindWorkspace(root)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), root) {
			t.Errorf("FindWorkspace(%s) error = %v; want ErrNotFound naming the folder", root, err)
		}
	})
}

func mustRel(t *testing.T, path string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// The path travels to SQLite inside a file: URI; characters that mean
// something in a URI must reach the file system unchanged.
func TestOpenPathNeedingEscapes(t *testing.T) {
	t.Parallel()
	ws := filepath.Join(t.TempDir(), "my proj?v=1#x%20&mode=ro")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info := newSession(t, s)
	if _, err := s.Append(context.Background(), info.ID, "session.started", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, StoreDir, StoreFile)); err != nil {
		t.Errorf("store not where expected: %v", err)
	}
}
