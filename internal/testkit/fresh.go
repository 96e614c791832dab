package testkit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// freshEnv names, in the environment of a process InFreshProcess starts,
// the test that runs fn there.
const freshEnv = "TESTKIT_FRESH_TEST"

// freshMark starts the line on which the fresh process reports fn's result.
const freshMark = "testkit-fresh-result: "

// InFreshProcess runs fn in a new process of the test binary, where no
// package state of this one exists yet (a sync.Once not done, a cache
// empty), and returns the line fn returned there. It is for a cost paid once
// per process, such as what the first use of a package compiles. The test
// calling it must call it first: in the new process the same test runs, and
// InFreshProcess runs fn, prints its result and ends the process.
func InFreshProcess(t *testing.T, fn func() string) string {
	t.Helper()
	if os.Getenv(freshEnv) == t.Name() {
		fmt.Printf("\n%s%s\n", freshMark, fn())
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), freshEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fresh process of %s: %v\n%s", t.Name(), err, out)
	}
	_, rest, ok := bytes.Cut(out, []byte("\n"+freshMark))
	if !ok {
		t.Fatalf("fresh process of %s reported no result:\n%s", t.Name(), out)
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	return string(line)
}

// AllocsInFreshProcess runs fns one after the other in a new process of the
// test binary (see InFreshProcess) and returns how many heap allocations
// each made there: what the first use of a package costs, counted, not
// timed. The calling test must call it first.
func AllocsInFreshProcess(t *testing.T, fns ...func()) []uint64 {
	t.Helper()
	got := InFreshProcess(t, func() string {
		var counts []string
		for _, fn := range fns {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			fn()
			runtime.ReadMemStats(&after)
			counts = append(counts, strconv.FormatUint(after.Mallocs-before.Mallocs, 10))
		}
		return strings.Join(counts, " ")
	})
	var out []uint64
	for _, f := range strings.Fields(got) {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			t.Fatalf("fresh process of %s reported %q", t.Name(), got)
		}
		out = append(out, n)
	}
	if len(out) != len(fns) {
		t.Fatalf("fresh process of %s reported %q for %d functions", t.Name(), got, len(fns))
	}
	return out
}
