package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/harness-agent/harness/core/approval"
)

// ttyAsker asks the person at the terminal to approve an action inline.
type ttyAsker struct {
	in   *bufio.Reader
	out  io.Writer
	view *renderer
}

var _ approval.Asker = (*ttyAsker)(nil)

func (a *ttyAsker) Ask(ctx context.Context, act approval.Action) (approval.Answer, error) {
	a.view.mu.Lock()
	defer a.view.mu.Unlock()
	var b strings.Builder
	a.view.newline(&b)
	if act.Diff != "" {
		a.view.diff(&b, act.Diff)
	}
	fmt.Fprintf(&b, "%s %s: %s\n", a.view.style(ansiYel, "? approve"), act.Kind, act.Summary)
	if act.Reason != "" {
		fmt.Fprintf(&b, "  %s\n", a.view.style(ansiDim, act.Reason))
	}
	b.WriteString("  [y]es / [n]o / [a]lways for this session › ")
	io.WriteString(a.out, b.String())
	answers := make(chan string, 1)
	go func() {
		line, err := a.in.ReadString('\n')
		if err != nil && line == "" {
			close(answers)
			return
		}
		answers <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case <-ctx.Done():
		return approval.No, ctx.Err()
	case line, ok := <-answers:
		if !ok {
			return approval.No, io.EOF
		}
		switch line {
		case "y", "yes":
			return approval.Yes, nil
		case "a", "always":
			return approval.Always, nil
		}
		return approval.No, nil
	}
}
