package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
)

// This file is everything an interactive session (a person at the
// terminal, `harness run CONFIG` without a task) does differently from a
// run that ends on its own: one reader of the person's lines for the
// prompts and the approval questions, and Ctrl-C that stops the current
// turn instead of the session.
//
//   - Ctrl-C during a turn cancels that turn (its pending tool calls are
//     canceled, the partial answer is kept and marked) and the prompt comes
//     back;
//   - Ctrl-C at the prompt says how to leave; a second one in a row ends the
//     session as interrupted (exit 130); Ctrl-D ends it as completed (0).

// errPromptInterrupted is returned by a read that Ctrl-C interrupted.
var errPromptInterrupted = errors.New("interrupted at the prompt")

// lineReader reads the person's lines in one goroutine for the whole
// session, so that a question abandoned by Ctrl-C never swallows the line
// typed at the next prompt.
type lineReader struct {
	lines chan string
	err   error // after lines is closed: why (io.EOF at Ctrl-D)
	once  sync.Once
	in    *bufio.Reader
}

func newLineReader(in *bufio.Reader) *lineReader {
	return &lineReader{lines: make(chan string), in: in}
}

func (l *lineReader) start() {
	l.once.Do(func() {
		go func() {
			for {
				line, err := l.in.ReadString('\n')
				if line != "" || err == nil {
					l.lines <- line
				}
				if err != nil {
					l.err = err
					close(l.lines)
					return
				}
			}
		}()
	})
}

// next returns the next line (without its newline), io.EOF at the end of
// input, ctx's error when ctx ends first, or errPromptInterrupted when
// interrupt fires.
func (l *lineReader) next(ctx context.Context, interrupt <-chan struct{}) (string, error) {
	l.start()
	select {
	case line, ok := <-l.lines:
		if !ok {
			return "", io.EOF
		}
		return trimNewline(line), nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-interrupt:
		return "", errPromptInterrupted
	}
}

func trimNewline(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	return s
}

// turnSignals routes Ctrl-C of an interactive session: to the running
// turn's cancel while a turn runs, to the prompt otherwise.
type turnSignals struct {
	sigs   chan os.Signal
	prompt chan struct{}

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's; nil at the prompt
}

func watchTurnSignals() *turnSignals {
	t := &turnSignals{sigs: make(chan os.Signal, 4), prompt: make(chan struct{}, 1)}
	signal.Notify(t.sigs, os.Interrupt)
	go func() {
		for range t.sigs {
			t.mu.Lock()
			cancel := t.cancel
			t.mu.Unlock()
			if cancel != nil {
				cancel()
				continue
			}
			select {
			case t.prompt <- struct{}{}:
			default:
			}
		}
	}()
	return t
}

// turn returns the context of one turn; done ends it.
func (t *turnSignals) turn(ctx context.Context) (context.Context, func()) {
	turnCtx, cancel := context.WithCancel(ctx)
	t.mu.Lock()
	t.cancel = cancel
	t.mu.Unlock()
	// A Ctrl-C that reached the prompt just before the turn began is stale.
	select {
	case <-t.prompt:
	default:
	}
	return turnCtx, func() {
		t.mu.Lock()
		t.cancel = nil
		t.mu.Unlock()
		cancel()
	}
}

func (t *turnSignals) stop() {
	signal.Stop(t.sigs)
	close(t.sigs)
}
