package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/runner"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
)

func (c *cli) actionsCommand() *cobra.Command {
	var workspace string
	var all, acceptConfig bool
	cmd := &cobra.Command{
		Use:   "actions list [--all | --workspace DIR] | show ID | approve ID | deny ID | rules [SESSION]",
		Short: "List actions that await approval, approve (and run) or deny them",
		Long: "`list` shows the actions of the sessions of the workspace around the current folder (or\n" +
			"of the workspaces inside it); `approve` and `deny` take an action id from any folder.",
	}
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "list the actions of this workspace's sessions (default: the one around the current folder)")
	decide := func(approve bool) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			return c.actionsDecide(cmd.Context(), workspace, args[0], approve, acceptConfig)
		}
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the actions of the workspace's sessions, oldest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.actionsList(cmd.Context(), workspace, all)
		},
	}
	list.Flags().BoolVar(&all, "all", false, "list the actions of every workspace's sessions")
	approve := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve a pending action and run it with its session's configuration",
		Long: "Approves a pending action and runs its tool call through the same tool plugin, with the\n" +
			"configuration file its session recorded, then records the result in the session.\n" +
			"It refuses when that configuration (its files or the lock file) changed since the session ran.\n" +
			"`harness run --resume SESSION CONFIG` continues the conversation with it.",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: decide(true),
	}
	approve.Flags().BoolVar(&acceptConfig, "accept-config-change", false, "run the action even though its session's configuration changed since")
	cmd.AddCommand(
		list,
		approve,
		c.actionsShowCommand(&workspace),
		c.actionsRulesCommand(&workspace),
		&cobra.Command{
			Use:   "deny ID",
			Short: "Deny a pending action; the model learns it on resume",
			Args:  usageArgs(cobra.ExactArgs(1)),
			RunE:  decide(false),
		},
	)
	return cmd
}

func (c *cli) actionsList(ctx context.Context, workspace string, all bool) error {
	ctx = contextOrBackground(ctx)
	store, err := c.openStore(ctx, workspace)
	if err != nil {
		return err
	}
	defer store.Close()
	every, err := store.Actions(ctx, "", "")
	if err != nil {
		return err
	}
	sessions, err := store.ListSessions(ctx)
	if err != nil {
		return err
	}
	sc, err := listScope(all, workspace, sessions)
	if err != nil {
		return err
	}
	inScope := map[string]bool{}
	byID := map[string]session.SessionInfo{}
	for _, s := range sessions {
		inScope[s.ID] = sc.covers(s.Workspace)
		byID[s.ID] = s
	}
	var acts []session.Action
	for _, a := range every {
		if inScope[a.Session] {
			acts = append(acts, a)
		}
	}
	if len(acts) == 0 {
		fmt.Fprintf(c.stdout, "no actions in %s", sc.describe())
		if len(every) > 0 && !all {
			fmt.Fprintf(c.stdout, " (%s elsewhere: harness actions list --all)", countNoun(len(every), "action"))
		}
		fmt.Fprintln(c.stdout)
		return nil
	}
	c.printActions(acts, byID)
	return nil
}

// actionsDecide approves or denies a pending action. Approving loads the
// configuration the action's session recorded and runs the call with the
// tools of the session's agent.
func (c *cli) actionsDecide(ctx context.Context, workspace, id string, approve, acceptConfig bool) error {
	ctx = contextOrBackground(ctx)
	store, err := c.openStore(ctx, workspace)
	if err != nil {
		return err
	}
	defer store.Close()
	a, err := actionByID(ctx, store, id)
	if err != nil {
		return err
	}
	if a.Status != session.ActionStatusPending {
		return exitf(exitFailed, "action %s is already %s (by %s: %s)", a.ID, a.Status, a.DecidedBy, a.Rule)
	}
	if address, onTemporal, err := temporalSession(ctx, store, a.Session); err != nil {
		return err
	} else if onTemporal {
		return c.signalDecision(ctx, address, a, approve)
	}
	if !approve {
		if _, err := approval.Apply(ctx, store, nil, a.ID, false); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "denied %s: %s\n", a.ID, a.Summary)
		c.resumeHint(ctx, store, a.Session)
		return nil
	}

	info, err := store.Session(ctx, a.Session)
	if err != nil {
		return err
	}
	if why := workspaceElsewhere(info); why != "" {
		// A shared store: the call runs where its workspace is.
		if _, err := approval.ApproveElsewhere(ctx, store, a.ID, session.Hostname()); err != nil {
			return exitf(exitFailed, "%v", err)
		}
		fmt.Fprintf(c.stdout, "approved %s: %s\n", a.ID, a.Summary)
		fmt.Fprintf(c.stdout, "not run here: %s; it runs when the session resumes on %s: harness run --resume %s %s\n",
			why, hostOrUnknown(info.Host), info.ID, info.ConfigPath)
		return nil
	}

	ex, closeTools, err := c.sessionExecutor(ctx, store, a.Session, "run action "+a.ID, acceptConfig)
	if err != nil {
		return err
	}
	defer closeTools()
	out, err := approval.Apply(ctx, store, ex, a.ID, true)
	if errors.Is(err, session.ErrAlreadyDecided) {
		return exitf(exitFailed, "%v", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "approved %s: %s\n", a.ID, a.Summary)
	if out.Result.Content != "" {
		fmt.Fprintln(c.stdout, strings.TrimRight(out.Result.Content, "\n"))
	}
	c.resumeHint(ctx, store, a.Session)
	if e := out.Result.Err; e != nil {
		return exitf(exitFailed, "%s failed (%s): %s", a.Tool, e.Kind, e.Message)
	}
	return nil
}

// workspaceElsewhere says why this machine cannot run the actions of a
// session: its workspace is on another machine (the session's host, from a
// shared store) or missing here; "" when it is here. A workspace is known
// by its machine's name (session.Hostname, $HARNESS_HOST) and its path: a
// folder shared by two machines counts as two workspaces, so an action
// approved on the other one runs on the session's own machine, on resume.
func workspaceElsewhere(info session.SessionInfo) string {
	if info.Host != "" && info.Host != session.Hostname() {
		return fmt.Sprintf("its workspace %s is on %s, not on this machine (%s)", info.Workspace, info.Host, session.Hostname())
	}
	if st, err := os.Stat(info.Workspace); err != nil || !st.IsDir() {
		return fmt.Sprintf("its workspace %s does not exist on this machine", info.Workspace)
	}
	return ""
}

func hostOrUnknown(h string) string {
	if h == "" {
		return "its machine"
	}
	return h
}

// sessionExecutor builds the tool executor of a session's agent from the
// configuration file the session recorded, the way `run` builds it (MCP
// servers included). The returned func stops the plugins.
func (c *cli) sessionExecutor(ctx context.Context, store *session.Store, id, doing string, acceptConfig bool) (*tools.Executor, func(), error) {
	info, err := store.Session(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if info.ConfigPath == "" {
		return nil, nil, exitf(exitUsage, "session %s recorded no configuration file, so its actions cannot run", info.ID)
	}
	cfg, err := c.loadConfig(info.ConfigPath, false)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Agent(info.Agent) == nil {
		return nil, nil, exitf(exitUsage, "%s no longer declares agent %q of session %s", info.ConfigPath, info.Agent, info.ID)
	}
	if !acceptConfig {
		if err := runner.CheckConfig(info, cfg, doing, true); err != nil {
			return nil, nil, exitf(exitUsage, "%v", err)
		}
	}
	r, err := runner.Open(ctx, runner.Options{Config: cfg, Agent: info.Agent, StorePath: store.Path(), StateDir: c.locator.StateFolder(), Builtins: builtinCatalog(), Secrets: c.secrets, Logger: c.logger})
	if err != nil {
		return nil, nil, c.openError(cfg, err)
	}
	ex, err := r.Executor(ctx, info.ID)
	if err != nil {
		_ = r.Close()
		return nil, nil, exitf(exitFailed, "%v", err)
	}
	return ex, func() { _ = r.Close() }, nil
}

// resumeHint tells how to continue the session once it has no pending
// action left.
func (c *cli) resumeHint(ctx context.Context, store *session.Store, id string) {
	pending, err := store.Actions(ctx, id, session.ActionStatusPending)
	if err != nil || len(pending) > 0 {
		return
	}
	info, err := store.Session(ctx, id)
	if err != nil || info.ConfigPath == "" {
		return
	}
	fmt.Fprintf(c.stdout, "continue the session: harness run --resume %s %s\n", info.ID, info.ConfigPath)
}

func contextOrBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// clip cuts s to n runes for a table cell.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
