package engine

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

// A path naming a FIFO (or a device) is refused: reading it could block or
// never end. The walk skips such entries on its own.
func TestSearchRefusesSpecialFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
		t.Skipf("cannot create a FIFO here: %v", err)
	}
	_, err := Search(context.Background(), root, Query{Pattern: "x", Path: "fifo"})
	if sdk.KindOf(err) != sdk.KindInvalidArgs || !strings.Contains(err.Error(), "regular file") {
		t.Errorf("error %v, want kind %s about a regular file", err, sdk.KindInvalidArgs)
	}
	res, err := Search(context.Background(), root, Query{Pattern: "x"})
	if err != nil || res.Total != 0 {
		t.Errorf("walk over a FIFO: %+v, %v", res, err)
	}
}
