package main

import (
	"errors"
	"fmt"
)

// Exit codes (DESIGN §9).
const (
	exitOK          = 0
	exitFailed      = 1 // the run failed
	exitUsage       = 2 // usage or configuration error
	exitLimit       = 3 // a limit stopped the run
	exitPending     = 4 // ended with actions pending approval
	exitInterrupted = 130
)

// exitError carries an exit code up to execute; its message, if any, has
// not been printed yet.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func exitf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// silentExit ends the command with code after it printed its own output.
func silentExit(code int) error { return &exitError{code: code} }

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailed
}
