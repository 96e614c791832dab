package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

func TestBuildOnce(t *testing.T) {
	t.Parallel()
	first := Build(t, "./testdata/hello")
	if again := Build(t, "./testdata/hello"); again != first {
		t.Errorf("second Build gave %s, want the first binary %s", again, first)
	}
	out, err := exec.Command(first).Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("built binary printed %q, %v", out, err)
	}
}

func TestGoldenMatches(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.golden")
	WriteFile(t, path, "same\n")
	Golden(t, path, []byte("same\n"))
}

func TestGoldenReportsADiff(t *testing.T) {
	t.Parallel()
	if Updating() {
		t.Skip("with -update Golden writes instead of comparing")
	}
	path := filepath.Join(t.TempDir(), "out.golden")
	WriteFile(t, path, "want\n")
	var rec recorder
	Golden(&rec, path, []byte("got\n"))
	if !rec.failed {
		t.Error("a differing output passed")
	}
}

func TestEventually(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	if !Eventually(time.Minute, func() bool { return n.Add(1) == 3 }) {
		t.Error("a condition that comes true was not seen")
	}
	if Eventually(10*time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never holds was reported held")
	}
}

func TestWriteFileMakesFolders(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a", "b", "c.txt")
	WriteFile(t, path, "x")
	if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
		t.Fatalf("read back %q, %v", b, err)
	}
}

// recorder is a testing.TB that notes a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestInFreshProcessRunsInAnother(t *testing.T) {
	got := InFreshProcess(t, func() string { return strconv.Itoa(os.Getpid()) })
	if pid, err := strconv.Atoi(got); err != nil || pid == os.Getpid() || pid <= 0 {
		t.Errorf("InFreshProcess returned %q, want the pid of another process (this one is %d)", got, os.Getpid())
	}
}

var sink []*int

func TestAllocsInFreshProcessCounts(t *testing.T) {
	counts := AllocsInFreshProcess(t, func() {}, func() {
		for i := range 100 {
			sink = append(sink, &i)
		}
	})
	if len(counts) != 2 || counts[0] > 10 || counts[1] < 100 {
		t.Errorf("AllocsInFreshProcess counted %v, want about [0 100+]", counts)
	}
}
