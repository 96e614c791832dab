package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// countdownCtx reports cancellation after its Err method has been asked n
// times, so a test can cancel a search at every point of its walk.
type countdownCtx struct {
	context.Context
	left atomic.Int32
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// Directory handles are shared by the jobs that search a directory's files;
// however a search ends, every one is closed.
func TestSearchClosesDirectories(t *testing.T) {
	root := makeTree(t)
	before := openFDs(t)
	for n := range 40 {
		ctx := &countdownCtx{Context: context.Background()}
		ctx.left.Store(int32(n))
		_, err := Search(ctx, root, Query{Pattern: "needle"})
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if after := openFDs(t); after != before {
			t.Fatalf("canceled after %d checks: %d descriptors open, %d before", n, after, before)
		}
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open descriptors: %v", err)
	}
	return len(entries)
}
