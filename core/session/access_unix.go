//go:build unix

package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readOnlyStore says whether the store file at path exists but this
// process may not write it or its folder (which holds the -wal and -shm
// files): a read-only mount, an immutable file, or permissions. access(2)
// answers for root too: it reports a read-only file system and an
// immutable file even to root.
func readOnlyStore(path string) bool {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false // to be created: the open says why if it cannot be
	}
	return unix.Access(path, unix.W_OK) != nil || unix.Access(filepath.Dir(path), unix.W_OK) != nil
}
