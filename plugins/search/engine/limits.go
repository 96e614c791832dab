package engine

import (
	"errors"
	"fmt"
)

// MaxFileBytes is the largest file a search reads: a larger one (a log, a
// database, a sparse file of gigabytes) is not read into memory but
// counted in Result.Skipped, so memory stays bounded whatever the tree.
const MaxFileBytes = 32 << 20

// errNotRegular refuses what the listing said was a file but the open
// found was not (a FIFO or device swapped in).
var errNotRegular = errors.New("not a regular file")

// tooLargeError refuses a file over MaxFileBytes.
type tooLargeError struct{ size int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, over the %d MiB a search reads", e.size, MaxFileBytes>>20)
}
