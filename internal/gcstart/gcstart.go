// Package gcstart delays a process's first garbage collection until its
// heap has grown to a few MiB more than Go's default start.
//
// The Go runtime collects for the first time when the heap reaches 4 MiB.
// A harness process allocates about 3 MiB in package init alone, so every
// process — the host and each plugin process, which re-executes the same
// binary — collected once or twice in its first 30 ms, before it had done
// any work: about a quarter of the CPU time of a two-turn session. Delay
// turns collection off until the runtime's memory reaches a limit, and the
// first collection (the limit reached) turns it back on as GOGC=100 with no
// limit, so a long-lived process is collected exactly as before, and a
// short one that stays under the limit is never collected at all.
package gcstart

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// Limit is the memory (all the runtime's classes, as GOMEMLIMIT counts
// it) a process may reach before its first collection.
const Limit = 24 << 20

// Delay turns collection off until the runtime's memory reaches limit
// bytes; the first collection restores the default. A GOGC or GOMEMLIMIT
// in the environment is the user's choice and wins: then it does nothing.
// It reports whether it changed anything.
func Delay(limit int64) bool {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return false
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return false
	}
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
	// The sentinel is unreachable at once; the first collection finds it
	// and runs its cleanup. 64 bytes keeps it out of the tiny allocator,
	// whose blocks may hold an object past its collection.
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(struct{}) { restore() }, struct{}{})
	return true
}

// restore is Go's default: GOGC=100, no memory limit.
func restore() {
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}
