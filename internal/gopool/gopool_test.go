package gopool

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// TestGoRunsEveryFunction: concurrent functions all run, more of them at
// once than MaxIdle, and each exactly once.
func TestGoRunsEveryFunction(t *testing.T) {
	const n = 4 * MaxIdle
	var (
		wg      sync.WaitGroup
		release = make(chan struct{})
		mu      sync.Mutex
		ran     = map[int]int{}
	)
	wg.Add(n)
	for i := range n {
		Go(func() {
			defer wg.Done()
			<-release // all n run at once: none can wait for another to end
			mu.Lock()
			ran[i]++
			mu.Unlock()
		})
	}
	close(release)
	wg.Wait()
	for i := range n {
		if ran[i] != 1 {
			t.Fatalf("function %d ran %d times, want 1 (ran: %v)", i, ran[i], ran)
		}
	}
	if w := idle.Load(); w > MaxIdle {
		t.Fatalf("%d goroutines wait, want at most %d", w, MaxIdle)
	}
}

// TestGoReusesAWaitingGoroutine: a function handed to Go after another
// has ended runs on a goroutine that was waiting, with the stack it grew,
// not on a new one.
func TestGoReusesAWaitingGoroutine(t *testing.T) {
	Go(func() {})
	waitForIdle(t, 1)
	waiting := waitingGoroutines()
	ran := make(chan string)
	Go(func() {
		buf := make([]byte, 64)
		buf = buf[:runtime.Stack(buf, false)]
		ran <- strings.Fields(string(buf))[1] // "goroutine N [running]:"
	})
	if got := <-ran; !waiting[got] {
		t.Fatalf("the function ran on goroutine %s, want one of the waiting %v", got, waiting)
	}
}

// TestIdleFunctionNamesTheWaitingGoroutine: goleak, given IdleFunction,
// ignores the goroutines that wait and reports one still running.
func TestIdleFunctionNamesTheWaitingGoroutine(t *testing.T) {
	done := make(chan struct{})
	Go(func() {}) // leaves at least one goroutine waiting
	waitForIdle(t, 1)
	if err := goleak.Find(goleak.IgnoreCurrent(), goleak.IgnoreTopFunction(IdleFunction)); err != nil {
		t.Fatalf("goleak reports a waiting goroutine: %v", err)
	}
	stuck, started := make(chan struct{}), make(chan struct{})
	Go(func() { close(started); <-stuck; close(done) })
	<-started // out of wait, so its own function is on top
	if err := goleak.Find(goleak.IgnoreTopFunction(IdleFunction)); err == nil {
		t.Fatal("goleak does not report a goroutine still running its function")
	}
	close(stuck)
	<-done
}

// waitForIdle blocks until at least n goroutines wait in wait's receive
// (idle counts one just before it gets there).
func waitForIdle(t *testing.T, n int) {
	t.Helper()
	for len(waitingGoroutines()) < n {
		runtime.Gosched()
	}
}

// waitingGoroutines is the set of the numbers of the goroutines blocked in
// wait's receive.
func waitingGoroutines() map[string]bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	ids := map[string]bool{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "[chan receive") && strings.Contains(g, IdleFunction+"(") {
			ids[strings.Fields(g)[1]] = true
		}
	}
	return ids
}
