package main

import (
	"errors"
	"strings"
	"testing"
)

// Each option of `harness run` on the Temporal engine works as on the
// local engine or is refused, saying why.
func TestTemporalOptions(t *testing.T) {
	tests := []struct {
		name     string
		f        runFlags
		hasTask  bool
		tty      bool
		ask      bool
		refusal  string // "" when the run goes ahead
		exitCode int
	}{
		{name: "task, no terminal", hasTask: true},
		{name: "task at a terminal: approvals asked here", hasTask: true, tty: true, ask: true},
		{name: "--no-input at a terminal: unattended", f: runFlags{noInput: true}, hasTask: true, tty: true},
		{name: "--yes at a terminal: nothing to ask", f: runFlags{yes: true}, hasTask: true, tty: true},
		{name: "--detach at a terminal: nobody follows", f: runFlags{detach: true}, hasTask: true, tty: true},
		{name: "--resume with a message", f: runFlags{resume: "s-1"}, hasTask: true},
		{name: "--resume without a message", f: runFlags{resume: "s-1"}},
		{name: "--continue at a terminal", f: runFlags{cont: true}, tty: true, ask: true},
		{name: "no task at a terminal (a chat)", tty: true, refusal: "gets its task when it starts", exitCode: exitUsage},
		{name: "no task, no terminal", refusal: "no task", exitCode: exitUsage},
		{name: "no task, --no-input at a terminal", f: runFlags{noInput: true}, tty: true, refusal: "no task", exitCode: exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode, err := temporalOptions(tt.f, tt.hasTask, tt.tty)
			if tt.refusal != "" {
				var ee *exitError
				if err == nil || !strings.Contains(err.Error(), tt.refusal) {
					t.Fatalf("err = %v, want a refusal saying %q", err, tt.refusal)
				}
				if !errors.As(err, &ee) || ee.code != tt.exitCode {
					t.Errorf("err = %#v, want exit %d", err, tt.exitCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if mode.ask != tt.ask {
				t.Errorf("ask = %v, want %v", mode.ask, tt.ask)
			}
		})
	}
}
