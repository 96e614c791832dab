package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/session"
)

// openStore opens the session store of --workspace DIR, else of the
// nearest folder from the current one up that has a .harness store.
func openStore(workspace string) (*session.Store, error) {
	if workspace == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if workspace, err = session.FindWorkspace(cwd); err != nil {
			return nil, exitf(exitUsage, "%v; run in a workspace or pass --workspace DIR", err)
		}
	}
	if _, err := os.Stat(filepath.Join(workspace, session.StoreDir, session.StoreFile)); err != nil {
		return nil, exitf(exitUsage, "no session store in %s (%v)", workspace, err)
	}
	return session.Open(workspace)
}

func (c *cli) sessionsCommand() *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "sessions [--workspace DIR] list | show ID | events ID [--json]",
		Short: "List recorded sessions, replay one, or print its events",
	}
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "workspace whose store to read (default: the nearest with a .harness folder)")
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
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List sessions, newest first",
			Args:  usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, _ []string) error {
				return c.sessionsList(cmd.Context(), workspace)
			},
		},
		&cobra.Command{
			Use:   "show ID",
			Short: "Replay a session as the live run showed it",
			Args:  usageArgs(cobra.ExactArgs(1)),
			RunE: func(cmd *cobra.Command, args []string) error {
				return c.withSession(cmd.Context(), workspace, args[0], func(_ *session.Store, info session.SessionInfo, evs []session.Event) error {
					view := newRenderer(c.stdout, nil, false, isTerminal(c.stdout))
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
	)
	return cmd
}

func (c *cli) withSession(ctx context.Context, workspace, id string, f func(*session.Store, session.SessionInfo, []session.Event) error) error {
	s, err := openStore(workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	info, err := s.Session(ctx, id)
	if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
		return exitf(exitUsage, "%v", err)
	}
	if err != nil {
		return err
	}
	evs, err := s.Events(ctx, info.ID, 0)
	if err != nil {
		return err
	}
	return f(s, info, evs)
}

func (c *cli) sessionsList(ctx context.Context, workspace string) error {
	s, err := openStore(workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	list, err := s.ListSessions(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGENT\tSTATUS\tTURNS\tTOKENS\tCOST\tAGE")
	for _, info := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t$%.4f\t%s\n", info.ID, info.Agent, info.Status, info.Turns, thousands(info.Tokens), info.CostUSD, age(time.Since(info.StartedAt)))
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

func compactJSON(b []byte, max int) string {
	s := strings.ReplaceAll(string(b), "\n", "⏎")
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
