package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Closing a store leaves its commits in the -wal file, without a
// checkpoint (wal.go), and the next open reads every one of them.
func TestCloseKeepsTheLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := tempStore(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	info := newSession(t, s)
	const n = 50
	for i := range n {
		if _, err := s.Append(ctx, info.ID, "test.tick", crashData(int64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EndSession(ctx, info.ID, StatusCompleted, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() == 0 {
		t.Fatalf("after Close the -wal file is %v, %v: the close checkpointed it (the driver no longer lets wal.go set SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE?)", fi, err)
	}

	s = openForTest(t, path)
	evs, err := s.Events(ctx, info.ID, 0)
	if err != nil || len(evs) != n {
		t.Fatalf("%d events after reopening, %v; want %d", len(evs), err, n)
	}
	for i, ev := range evs {
		if want := fmt.Sprintf(`"n":%d,`, i+1); ev.Seq != int64(i+1) || !strings.Contains(string(ev.Data), want) {
			t.Fatalf("event %d: seq %d, data %.40s", i, ev.Seq, ev.Data)
		}
	}
	if got, err := s.Session(ctx, info.ID); err != nil || got.Status != StatusCompleted {
		t.Errorf("session after reopening: %+v, %v", got, err)
	}
}

// The log stays bounded across processes that each commit and close: the
// open after the log passes walLimit checkpoints it, and the writer after
// that truncates it.
func TestLogStaysBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := tempStore(t)
	first := 0 // bytes of log the first process wrote (its schema too)
	for run := range 40 {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		info := newSession(t, s)
		for i := range 10 {
			if _, err := s.Append(ctx, info.ID, "test.tick", crashData(int64(run*10+i+1))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		size := walSize(t, path)
		if run == 0 {
			first = size
		}
		// 40 runs write about 5 times walLimit.
		if limit := walLimit + 2*first; size > limit {
			t.Fatalf("after run %d the log is %d bytes, more than %d (walLimit and twice the first run's commits)", run, size, limit)
		}
	}
}

func walSize(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		return 0
	}
	return int(fi.Size())
}
