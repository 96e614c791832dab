package gopool

import "sync/atomic"

// MaxIdle is how many goroutines wait for a function at most.
const MaxIdle = 8

// IdleFunction is the function a waiting goroutine is blocked in, as
// goleak names it.
const IdleFunction = "github.com/harness-agent/harness/internal/gopool.wait"

var (
	work = make(chan func()) // unbuffered: a send succeeds only to a waiting goroutine
	idle atomic.Int32        // goroutines that have finished and wait or are about to
)

// Go runs f on a goroutine that waits for one, or on a new goroutine.
func Go(f func()) {
	select {
	case work <- f:
	default:
		go run(f)
	}
}

// run runs f, then whatever Go hands it, until MaxIdle others wait.
func run(f func()) {
	for f != nil {
		f()
		f = wait()
	}
}

// wait is where a goroutine waits for its next function; it returns nil
// when MaxIdle others already wait, and the goroutine ends.
func wait() func() {
	if idle.Add(1) > MaxIdle {
		idle.Add(-1)
		return nil
	}
	f := <-work
	idle.Add(-1)
	return f
}
