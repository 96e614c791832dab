package session

import (
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

var (
	// ErrNotFound is wrapped by every error about a session, action or store
	// that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous is wrapped when an id prefix matches more than one record.
	ErrAmbiguous = errors.New("ambiguous id prefix")
)

// notFound says which kind of record is missing: "session not found".
func notFound(noun string) error { return fmt.Errorf("%s %w", noun, ErrNotFound) }

// fail wraps err with what failed and where, and adds what to do when the
// cause is one a person can fix (a full disk, a read-only file).
func (s *Store) fail(op string, err error) error {
	hint := hintFor(err)
	if s.pg {
		hint = pgHint(err)
	}
	if hint != "" {
		return fmt.Errorf("session store %s: %s: %w; %s", s.name, op, err, hint)
	}
	return fmt.Errorf("session store %s: %s: %w", s.name, op, err)
}

func hintFor(err error) string {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_READONLY:
		return "the database is read-only: check the permissions of the file, its folder and the -wal and -shm files next to it; reading still works"
	case sqlite3.SQLITE_FULL:
		return "the disk is full: free some space and retry; what was committed before is intact and readable"
	case sqlite3.SQLITE_BUSY:
		return "another harness process held the write lock for too long"
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return "the file is damaged or not a harness session store"
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		return "the file cannot be opened: check that its folder exists and is accessible"
	case sqlite3.SQLITE_IOERR:
		return "the operating system reported an I/O error"
	}
	return ""
}
