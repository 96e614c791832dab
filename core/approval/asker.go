package approval

import (
	"context"

	"github.com/harness-agent/harness/core/session"
)

// Choice is what a person chose.
type Choice int

// Choices.
const (
	ChoiceNo Choice = iota
	ChoiceYes
	// ChoiceAlways approves this action and every later one in the scope the
	// question stated (Action.Scope), for the rest of the session.
	ChoiceAlways
)

// Answer is a person's answer to an approval question.
type Answer struct {
	Choice Choice
	// Reason is why a person said no, in their words; the model reads it in
	// the tool result.
	Reason string
}

// Answers without a reason.
var (
	No     = Answer{Choice: ChoiceNo}
	Yes    = Answer{Choice: ChoiceYes}
	Always = Answer{Choice: ChoiceAlways}
)

// NoBecause is a "no" with the person's reason for the model.
func NoBecause(reason string) Answer { return Answer{Choice: ChoiceNo, Reason: reason} }

// Action is what a person is asked to approve.
type Action struct {
	session.Action        // as proposed: id, kind, tool, summary, arguments
	Reason         string // why no rule decided it, e.g. `"curl x" matches no allow_commands`
	// Command is a terminal action's whole command and Commands every simple
	// command it runs, in full: people approve what runs, not a summary.
	Command  string
	Commands []string
	// Diff is the unified diff a write_file or edit_file action would make
	// to the file as it is now ("" when it cannot be shown: unreadable,
	// binary or over 1 MiB; the summary says which).
	Diff string
	// Scope says what "always" would approve, e.g. "`echo *` in this
	// session"; "" when always is not offered.
	Scope string
}

// Asker asks the person at the terminal. The pipeline asks one question at
// a time. An error counts as nobody being able to answer.
type Asker interface {
	Ask(ctx context.Context, a Action) (Answer, error)
}
