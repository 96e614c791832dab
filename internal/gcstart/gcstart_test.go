package gcstart

import (
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
)

var sink []byte

func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func numGC() uint64 { return read("/gc/cycles/total:gc-cycles") }

// garbage allocates n bytes in 256 KiB blocks, each dropped at once.
func garbage(n int) {
	for i := 0; i < n; i += 256 << 10 {
		sink = make([]byte, 256<<10)
	}
	sink = nil
}

// TestDelay: under the limit nothing is collected (Go's default would
// have collected several times); the first collection restores GOGC=100
// and no limit.
func TestDelay(t *testing.T) {
	t.Cleanup(restore)
	total := read("/memory/classes/total:bytes")
	if !Delay(int64(total) + 32<<20) {
		t.Fatal("Delay did nothing without GOGC or GOMEMLIMIT in the environment")
	}
	if got := int64(read("/gc/gogc:percent")); got != -1 {
		t.Fatalf("GOGC after Delay = %d, want -1 (off)", got)
	}
	before := numGC()
	garbage(16 << 20) // four times Go's first goal
	if n := numGC() - before; n != 0 {
		t.Fatalf("%d collections under the limit, want none", n)
	}
	// Past the limit: collected, then the default is back.
	for i := 0; i < 64 && read("/gc/gogc:percent") != 100; i++ {
		garbage(16 << 20)
		runtime.Gosched() // the cleanup runs on its own goroutine
	}
	if numGC() == before {
		t.Fatal("no collection past the limit")
	}
	if got := read("/gc/gogc:percent"); got != 100 {
		t.Fatalf("GOGC after the first collection = %d, want 100", got)
	}
	if got := read("/gc/gomemlimit:bytes"); got != math.MaxInt64 {
		t.Fatalf("memory limit after the first collection = %d, want none (MaxInt64)", got)
	}
}

// TestDelayLeavesTheUsersChoice: GOGC or GOMEMLIMIT in the environment
// wins.
func TestDelayLeavesTheUsersChoice(t *testing.T) {
	t.Cleanup(restore)
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "100")
			if Delay(1 << 30) {
				t.Fatalf("Delay changed the collector with %s set", env)
			}
			if got := read("/gc/gogc:percent"); got != 100 {
				t.Fatalf("GOGC = %d, want 100", got)
			}
		})
	}
}
