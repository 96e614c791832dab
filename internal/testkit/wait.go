package testkit

import (
	"testing"
	"time"
)

// WaitLimit bounds WaitFor: far longer than anything a test waits for
// takes on a loaded machine, so that reaching it means the condition will
// not come.
const WaitLimit = time.Minute

// WaitFor returns as soon as cond holds, and fails tb, saying it waited for
// what, when cond still does not hold after WaitLimit. It polls: use it for
// what gives no signal to wait on (a process exiting, a file a subprocess
// writes, a screen); a channel, a pipe or an event is better where there
// is one.
func WaitFor(tb testing.TB, cond func() bool, what string) {
	tb.Helper()
	if !Eventually(WaitLimit, cond) {
		tb.Fatalf("gave up after %s waiting for %s", WaitLimit, what)
	}
}

// Eventually polls cond until it holds or within has passed, and reports
// whether it held: for a caller that fails with its own message or cleans
// up after a timeout.
func Eventually(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(pause) // polling: cond has nothing to wait on
		pause = min(2*pause, 50*time.Millisecond)
	}
	return true
}
