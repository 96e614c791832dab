//go:build linux

// Package sandboxtest has what the terminal sandbox's tests share: ways
// to see that an attempt from inside the sandbox had no effect outside,
// without waiting for it.
package sandboxtest

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Connected says whether a connection reached listener l: one that
// connect(2) completed waits in the listener's backlog, where a
// non-blocking accept(2) finds it at once. The connection it finds is
// closed.
func Connected(t testing.TB, l syscall.Conn) bool {
	t.Helper()
	raw, err := l.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd int
	var aerr error
	if err := raw.Control(func(lfd uintptr) { fd, _, aerr = unix.Accept4(int(lfd), unix.SOCK_CLOEXEC) }); err != nil {
		t.Fatal(err)
	}
	switch {
	case aerr == nil:
		unix.Close(fd)
		return true
	case errors.Is(aerr, unix.EAGAIN):
		return false
	}
	t.Fatalf("accept: %v", aerr)
	return false
}

// StartSibling starts a process outside any sandbox (sleep). end sends it
// SIGTERM, reaps it and returns the signal that ended it: SIGTERM, unless
// something killed it before.
func StartSibling(t testing.TB) (pid int, end func() syscall.Signal) {
	t.Helper()
	sibling := exec.Command("sleep", "1000")
	if err := sibling.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var sig syscall.Signal
	end = func() syscall.Signal {
		once.Do(func() {
			_ = sibling.Process.Signal(syscall.SIGTERM)
			_ = sibling.Wait()
			if ws, ok := sibling.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				sig = ws.Signal()
			}
		})
		return sig
	}
	t.Cleanup(func() { end() })
	return sibling.Process.Pid, end
}
