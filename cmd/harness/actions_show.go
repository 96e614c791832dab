package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/session"
)

func (c *cli) actionsShowCommand(workspace *string) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print an action in full: its call's arguments, and a write's diff against the file as it is now",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.actionsShow(contextOrBackground(cmd.Context()), *workspace, args[0])
		},
	}
}

func (c *cli) actionsRulesCommand(workspace *string) *cobra.Command {
	return &cobra.Command{
		Use:   "rules [SESSION]",
		Short: "List what people approved with \"always\", per session (a resumed session keeps them)",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			return c.actionsRules(contextOrBackground(cmd.Context()), *workspace, id)
		},
	}
}

func (c *cli) actionsShow(ctx context.Context, workspace, id string) error {
	store, err := c.openStore(ctx, workspace)
	if err != nil {
		return err
	}
	defer store.Close()
	a, err := actionByID(ctx, store, id)
	if err != nil {
		return err
	}
	disp := c.displayFor(c.stdout)
	disp.live = false
	view := newRenderer(c.stdout, nil, false, disp)
	var b strings.Builder
	status := a.Status
	if a.DecidedBy != "" {
		status += " by " + a.DecidedBy
		if a.Rule != "" {
			status += " (" + a.Rule + ")"
		}
	}
	fmt.Fprintf(&b, "%s %s\n", view.style(ansiBold, "action "+visibleLine(a.ID)), view.style(ansiDim, visibleLine(fmt.Sprintf("· session %s · %s ago", a.Session, age(time.Since(a.CreatedAt))))))
	fmt.Fprintf(&b, "  kind     %s\n  tool     %s\n  status   %s\n", visibleLine(a.Kind), visibleLine(a.Tool), visibleLine(status))
	fmt.Fprintf(&b, "  summary\n")
	view.gutterLines(&b, visible(a.Summary), "")
	fmt.Fprintf(&b, "  arguments\n")
	view.gutterLines(&b, visible(indentJSON(a.Arguments)), "")
	if a.Kind == session.ActionKindWriteFile && a.Status == session.ActionStatusPending {
		c.showPendingWrite(ctx, store, view, &b, a)
	}
	_, err = fmt.Fprint(c.stdout, b.String())
	return err
}

// showPendingWrite adds the diff a pending write or edit would make now.
func (c *cli) showPendingWrite(ctx context.Context, store *session.Store, view *renderer, b *strings.Builder, a session.Action) {
	info, err := store.Session(ctx, a.Session)
	if err != nil || info.Workspace == "" {
		return
	}
	summary, diff, err := approval.PendingDiff(info.Workspace, a)
	if err != nil {
		fmt.Fprintf(b, "  diff: %s\n", visibleLine(err.Error()))
		return
	}
	fmt.Fprintf(b, "  diff against the file now (%s)\n", visibleLine(summary))
	view.diffLines(b, visible(diff), 0)
}

func (c *cli) actionsRules(ctx context.Context, workspace, id string) error {
	store, err := c.openStore(ctx, workspace)
	if err != nil {
		return err
	}
	defer store.Close()
	var sessions []session.SessionInfo
	if id != "" {
		info, err := sessionByID(ctx, store, id)
		if err != nil {
			return err
		}
		sessions = []session.SessionInfo{info}
	} else if sessions, err = store.ListSessions(ctx); err != nil {
		return err
	}
	n := 0
	for _, s := range sessions {
		evs, err := store.Events(ctx, s.ID, 0)
		if err != nil {
			return err
		}
		for _, k := range approval.RememberedScopes(evs) {
			fmt.Fprintf(c.stdout, "%s  always for %s\n", visibleLine(s.ID), visibleLine(strings.TrimSuffix(approval.DescribeScope([]string{k}), " in this session")))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(c.stdout, "no remembered approvals (an \"always\" answer to an approval question adds one for its session)")
	}
	return nil
}

// printActions lists actions: a row each, the full summary under it,
// wrapped to the terminal's width.
func (c *cli) printActions(acts []session.Action, sessions map[string]session.SessionInfo) {
	width := c.displayFor(c.stdout).width
	rows := [][]string{{"ID", "SESSION", "KIND", "STATUS", "AGE"}}
	for _, a := range acts {
		status := a.Status
		switch {
		case approval.TimedOut(a):
			status += " (timeout)"
		case a.DecidedBy != "":
			status += " (" + a.DecidedBy + ")"
		}
		rows = append(rows, []string{visibleLine(a.ID), visibleLine(a.Session), visibleLine(a.Kind), visibleLine(status), age(time.Since(a.CreatedAt))})
	}
	cols := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			cols[i] = max(cols[i], len([]rune(cell)))
		}
	}
	var b strings.Builder
	for i, r := range rows {
		for j, cell := range r {
			if j == len(r)-1 {
				b.WriteString(cell)
			} else {
				fmt.Fprintf(&b, "%-*s  ", cols[j], cell)
			}
		}
		b.WriteString("\n")
		if i == 0 {
			continue
		}
		for _, line := range wrapLine(visibleLine(acts[i-1].Summary), max(width-4, 0)) {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		// Where it runs: a shared store holds the actions of many machines.
		if info, ok := sessions[acts[i-1].Session]; ok {
			fmt.Fprintf(&b, "    workspace %s on %s\n", visibleLine(info.Workspace), visibleLine(hostOrUnknown(info.Host)))
		}
	}
	fmt.Fprint(c.stdout, b.String())
}

// indentJSON is a call's arguments as people read them; invalid JSON is
// shown as it is.
func indentJSON(raw []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}
