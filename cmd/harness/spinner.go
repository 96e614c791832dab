package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinner shows that harness waits for a model, on a terminal only. It
// draws on its own line and erases itself when stopped.
type spinner struct {
	done chan struct{}
	wg   sync.WaitGroup
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func startSpinner(w io.Writer) *spinner {
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
		tick := time.NewTicker(80 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%s%s waiting for the model…%s", ansiDim, spinnerFrames[i%len(spinnerFrames)], ansiReset)
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
