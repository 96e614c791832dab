package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/session"
)

func (c *cli) sessionsCommand() *cobra.Command {
	var workspace string
	var all bool
	cmd := &cobra.Command{
		Use:   "sessions list [--all | --workspace DIR] | show ID | events ID [--json] | view ID [-o FILE] [--open]",
		Short: "List recorded sessions, replay one, or print its events",
		Long: "Sessions of every workspace are kept in one store, in the user's state folder\n" +
			"(--state-dir, $" + session.EnvStateDir + ", $XDG_STATE_HOME/harness, ~/.local/state/harness).\n" +
			"`list` shows the sessions of the workspace around the current folder (or of the workspaces\n" +
			"inside it); `show`, `events` and `view` take a session id from any folder.",
	}
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "list the sessions of this workspace (default: the one around the current folder)")
	var asJSON bool
	events := &cobra.Command{
		Use:   "events ID",
		Short: "Print a session's events (--json: exactly the JSON Lines `run --json` printed)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withSession(cmd.Context(), workspace, args[0], func(s *session.Store, info session.SessionInfo, evs []session.Event) error {
				for _, ev := range evs {
					if asJSON {
						line, err := json.Marshal(ev)
						if err != nil {
							return err
						}
						fmt.Fprintf(c.stdout, "%s\n", line)
						continue
					}
					fmt.Fprintf(c.stdout, "%4d  %s  %-22s %s\n", ev.Seq, ev.Time.Local().Format("15:04:05.000"), ev.Type, compactJSON(ev.Data, 100))
				}
				return nil
			})
		},
	}
	events.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	list := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.sessionsList(cmd.Context(), workspace, all)
		},
	}
	list.Flags().BoolVar(&all, "all", false, "list the sessions of every workspace")
	cmd.AddCommand(
		list,
		c.sessionsAttachCommand(),
		&cobra.Command{
			Use:   "show ID",
			Short: "Replay a session as the live run showed it",
			Args:  usageArgs(cobra.ExactArgs(1)),
			RunE: func(cmd *cobra.Command, args []string) error {
				return c.withSession(cmd.Context(), workspace, args[0], func(_ *session.Store, info session.SessionInfo, evs []session.Event) error {
					disp := c.displayFor(c.stdout)
					disp.live, disp.replay = false, true
					view := newRenderer(c.stdout, nil, false, disp)
					fmt.Fprintf(c.stdout, "%s\n", view.style(ansiDim, fmt.Sprintf("session %s · agent %s · %s · %s", info.ID, info.Agent, info.Model, info.StartedAt.Local().Format(time.DateTime))))
					for _, ev := range evs {
						view.event(ev)
					}
					view.finishTurn(agent.Outcome{})
					view.closing(info.ID, agent.Outcome{Status: info.Status}, agent.Totals{Turns: info.Turns, Tokens: info.Tokens, CostUSD: info.CostUSD})
					return nil
				})
			},
		},
		events,
		c.sessionsViewCommand(&workspace),
	)
	return cmd
}

func (c *cli) withSession(ctx context.Context, workspace, id string, f func(*session.Store, session.SessionInfo, []session.Event) error) error {
	ctx = contextOrBackground(ctx)
	s, err := c.openStore(ctx, workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	info, err := sessionByID(ctx, s, id)
	if err != nil {
		return err
	}
	evs, err := s.Events(ctx, info.ID, 0)
	if err != nil {
		return err
	}
	return f(s, info, evs)
}

func (c *cli) sessionsList(ctx context.Context, workspace string, all bool) error {
	ctx = contextOrBackground(ctx)
	s, err := c.openStore(ctx, workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.ListSessions(ctx)
	if err != nil {
		return err
	}
	sc, err := listScope(all, workspace, list)
	if err != nil {
		return err
	}
	var shown []session.SessionInfo
	spread := map[string]bool{}
	for _, info := range list {
		if sc.covers(info.Workspace) {
			shown = append(shown, info)
			spread[info.Workspace] = true
		}
	}
	if len(shown) == 0 {
		fmt.Fprintf(c.stdout, "no sessions of %s", sc.describe())
		if len(list) > 0 {
			fmt.Fprintf(c.stdout, " (%s of %s: harness sessions list --all)", countNoun(len(list), "session"), countNoun(sc.workspaces, "workspace"))
		}
		fmt.Fprintln(c.stdout)
		return nil
	}
	withWorkspace := len(spread) > 1
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	header := "ID\tAGENT\tSTATUS\tTURNS\tTOKENS\tCOST\tAGE"
	if withWorkspace {
		header += "\tWORKSPACE"
	}
	fmt.Fprintln(tw, header)
	for _, info := range shown {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t$%.4f\t%s", info.ID, info.Agent, info.Status, info.Turns, thousands(info.Tokens), info.CostUSD, age(time.Since(info.StartedAt)))
		if withWorkspace {
			fmt.Fprintf(tw, "\t%s", info.Workspace)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// compactJSON is an event's stored JSON on one line for people: cut after
// max bytes (at a character's start) and visible, since encoding/json
// leaves bidirectional and zero-width characters as they are.
func compactJSON(b []byte, max int) string {
	s := strings.ReplaceAll(string(b), "\n", "⏎")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return visibleLine(s)
}
