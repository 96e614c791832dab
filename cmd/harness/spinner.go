package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinner shows what harness waits for (a model's first token, a running
// tool) and for how long, on a live terminal only. It draws on its own line
// and erases it when stopped; the renderer stops it before writing.
type spinner struct {
	done chan struct{}
	wg   sync.WaitGroup
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func startSpinner(w io.Writer, disp display, label string, since time.Time) *spinner {
	s := &spinner{done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		// Only a wait that lasts gets a spinner: no flicker on fast answers.
		select {
		case <-s.done:
			return
		case <-time.After(300 * time.Millisecond):
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			line := fmt.Sprintf("%s %s… %s", spinnerFrames[i%len(spinnerFrames)], label, elapsed(int(time.Since(since).Seconds())))
			if disp.width > 0 {
				if r := []rune(line); len(r) > disp.width-1 {
					line = string(r[:disp.width-1])
				}
			}
			if disp.color {
				line = ansiDim + line + ansiReset
			}
			fmt.Fprintf(w, "\r%s\x1b[K", line)
			select {
			case <-s.done:
				fmt.Fprint(w, "\r\x1b[2K")
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *spinner) stop() {
	close(s.done)
	s.wg.Wait()
}
