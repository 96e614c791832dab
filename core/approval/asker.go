package approval

import (
	"context"

	"github.com/harness-agent/harness/core/session"
)

// Answer is a person's answer to an approval question.
type Answer int

// Answers.
const (
	No Answer = iota
	Yes
	// Always approves this action and every later one with the same
	// signature in this session: for terminal the same simple commands,
	// for other tools the same tool.
	Always
)

// Action is what a person is asked to approve.
type Action struct {
	session.Action        // as proposed: id, kind, tool, summary, arguments
	Reason         string // why no rule decided it, e.g. `"curl x" matches no allow_commands`
	// Diff is the unified diff a write_file or edit_file action would make
	// to the file as it is now ("" when it cannot be shown: unreadable,
	// binary or over 1 MiB; the summary says which).
	Diff string
}

// Asker asks the person at the terminal. The pipeline asks one question at
// a time. An error counts as nobody being able to answer.
type Asker interface {
	Ask(ctx context.Context, a Action) (Answer, error)
}
