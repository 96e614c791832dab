package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Everything that stops a run from outside is handled here: SIGINT
// (Ctrl-C), SIGTERM (kill, systemd), SIGHUP (the terminal closed) and a
// closed standard output (`run --json … | head -1`). Each cancels the run's
// context with a *stopped cause: the current step stops, plugins and their
// children are stopped, the session is closed as interrupted, and the exit
// code says what stopped it (128 + the signal's number, as shells report a
// death by that signal). A second signal exits at once.
//
// In an interactive session Ctrl-C belongs to the turn (it stops the turn
// and the prompt comes back), so it is left out here.

// stopped is the cause of a run stopped from outside.
type stopped struct {
	reason string
	code   int
}

func (s *stopped) Error() string { return "interrupted by " + s.reason }

var (
	stopSIGINT  = &stopped{reason: "SIGINT", code: exitInterrupted}
	stopSIGHUP  = &stopped{reason: "SIGHUP (the terminal closed)", code: 128 + int(syscall.SIGHUP)}
	stopSIGTERM = &stopped{reason: "SIGTERM", code: 128 + int(syscall.SIGTERM)}
	// A closed standard output ends the run cleanly, with the code a death
	// by SIGPIPE would give, so that a pipeline reports it the same way.
	stopOutputClosed = &stopped{reason: "a closed standard output", code: 128 + int(syscall.SIGPIPE)}
)

func stopFor(sig os.Signal) *stopped {
	switch sig {
	case syscall.SIGHUP:
		return stopSIGHUP
	case syscall.SIGTERM:
		return stopSIGTERM
	}
	return stopSIGINT
}

// interruptContext returns the run's context, canceled by the signals
// above (SIGINT only when not interactive), and stop, which lets them go.
// A SIGPIPE never kills the process while it runs: a write to the closed
// output fails instead, and the outputs watchOutput wraps turn that failure
// into a stop.
func interruptContext(interactive bool) (ctx context.Context, interrupt func(*stopped), stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	watched := []os.Signal{syscall.SIGTERM, syscall.SIGHUP}
	if !interactive {
		watched = append(watched, os.Interrupt)
	}
	signal.Notify(sigs, watched...)
	// Notify, not Ignore: an ignored SIGPIPE would be inherited by every
	// plugin and command the run starts.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-pipes:
			case <-done:
				return
			}
		}
	}()
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		why := stopFor(sig)
		cancel(why)
		if _, ok := <-sigs; ok {
			os.Exit(why.code)
		}
	}()
	var once sync.Once
	return ctx, func(s *stopped) { cancel(s) }, func() {
		once.Do(func() {
			signal.Stop(sigs)
			signal.Stop(pipes)
			close(sigs)
			close(done)
			cancel(nil)
		})
	}
}

// stoppedBy returns why ctx was stopped from outside, nil if it was not.
func stoppedBy(ctx context.Context) *stopped {
	var s *stopped
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return nil
}

// interruptedExit is the exit code of a run stopped by ctx's cause.
func interruptedExit(ctx context.Context) int {
	if s := stoppedBy(ctx); s != nil {
		return s.code
	}
	return exitInterrupted
}

// watchOutput wraps w so that its first failed write (the reader went
// away) stops the run.
func watchOutput(w io.Writer, interrupt func(*stopped)) io.Writer {
	return &outputWatch{w: w, interrupt: interrupt}
}

type outputWatch struct {
	w         io.Writer
	interrupt func(*stopped)
	once      sync.Once
}

func (o *outputWatch) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		o.once.Do(func() { o.interrupt(stopOutputClosed) })
	}
	return n, err
}
