package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/session"
)

// maxQuestionDiff is how many diff lines an approval question shows; the
// rest is one `harness actions show ID` away.
const maxQuestionDiff = 40

// ttyAsker asks the person at the terminal to approve an action inline. It
// shows what would run in full (every simple command of a terminal
// command, the diff of a write) before the question; yes, no, no with a
// reason for the model, and always (its scope stated) are the answers, and
// anything else asks again.
type ttyAsker struct {
	lines *lineReader
	out   io.Writer
	view  *renderer
}

var _ approval.Asker = (*ttyAsker)(nil)

func (a *ttyAsker) Ask(ctx context.Context, act approval.Action) (approval.Answer, error) {
	a.view.mu.Lock()
	a.view.pause()
	io.WriteString(a.out, a.view.question(act))
	a.view.mu.Unlock()
	defer func() {
		a.view.mu.Lock()
		a.view.resume()
		a.view.mu.Unlock()
	}()
	for {
		line, err := a.lines.next(ctx, nil)
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(a.out)
			}
			return approval.No, err
		}
		if answer, ok := parseAnswer(line, act.Scope != ""); ok {
			return answer, nil
		}
		a.view.mu.Lock()
		io.WriteString(a.out, a.view.style(ansiYel, "  answer y (yes), n (no), n followed by your reason for the model")+a.alwaysHint(act)+" › ")
		a.view.mu.Unlock()
	}
}

func (a *ttyAsker) alwaysHint(act approval.Action) string {
	if act.Scope == "" {
		return ""
	}
	return a.view.style(ansiYel, ", or a (always)")
}

// parseAnswer reads an answer: y/yes, n/no, n or no followed by a reason
// ("n use make test", "no: wrong file"), a/always when offered.
func parseAnswer(line string, always bool) (approval.Answer, bool) {
	s := strings.TrimSpace(line)
	word, rest, _ := strings.Cut(s, " ")
	word = strings.ToLower(strings.TrimRight(word, ":,"))
	rest = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(rest), ":,-—"))
	switch word {
	case "y", "yes":
		if rest == "" {
			return approval.Yes, true
		}
	case "n", "no":
		if rest == "" {
			return approval.No, true
		}
		return approval.NoBecause(rest), true
	case "a", "always":
		if rest == "" && always {
			return approval.Always, true
		}
	}
	return approval.Answer{}, false
}

// question renders an approval question: what would run, why a person must
// decide, and the answers.
func (r *renderer) question(act approval.Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", r.style(ansiYel, "? approve "+visibleLine(act.Kind)+":"), r.style(ansiBold, visibleLine(act.Summary)))
	if act.Reason != "" {
		r.gutterLines(&b, visible(act.Reason), ansiDim)
	}
	switch {
	case act.Command != "":
		r.gutterLines(&b, "$ "+visible(act.Command), "")
		if len(act.Commands) > 1 || len(act.Commands) == 1 && act.Commands[0] != strings.TrimSpace(act.Command) {
			r.gutterLines(&b, fmt.Sprintf("runs %s:", countNoun(len(act.Commands), "simple command")), ansiDim)
			for _, c := range act.Commands {
				r.gutterLines(&b, "  "+visible(c), "")
			}
		}
	case act.Diff != "":
		if more := r.diffLines(&b, visible(act.Diff), maxQuestionDiff); more > 0 {
			r.gutterLines(&b, fmt.Sprintf("… %s more, see `harness actions show %s`", countNoun(more, "line"), act.ID), ansiDim)
		}
	case len(act.Arguments) > 0 && act.Kind != session.ActionKindWriteFile:
		r.gutterLines(&b, visible(indentJSON(act.Arguments)), "")
	}
	answers := "[y]es / [n]o / n REASON: no, and tell the model why"
	if act.Scope != "" {
		answers += " / [a]lways for " + visibleLine(act.Scope)
	}
	for i, part := range wrapLine(answers, max(r.disp.width-3, 0)) {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("  " + part)
	}
	b.WriteString(" › ")
	return b.String()
}
