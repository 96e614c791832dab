package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/runner"
	"github.com/harness-agent/harness/sdk"
)

type runFlags struct {
	agent   string
	asJSON  bool
	yes     bool
	noInput bool
	resume  string
	cont    bool
	// acceptConfig resumes a session whose configuration changed since.
	acceptConfig bool
	// engine, temporal, taskQueue and detach choose where the loop runs
	// (temporal.go).
	engine, temporal, taskQueue string
	detach                      bool
}

func (c *cli) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [--agent NAME] [--json] [--yes] [--no-input] [--resume ID | --continue] CONFIG [TASK]",
		Short: "Run an agent on a task",
		Long: "Runs an agent of CONFIG (the first one unless --agent names another) on TASK.\n" +
			"TASK is the argument; else standard input when it is not a terminal; else harness asks\n" +
			"for it, and then for each next message of the same session until end of input (Ctrl-D).\n" +
			"In such an interactive session Ctrl-C stops the current turn and the prompt comes back;\n" +
			"Ctrl-C twice at the prompt ends the session (exit 130), Ctrl-D ends it (exit 0).\n\n" +
			"Exit codes: 0 completed, 1 the run failed, 2 usage or configuration error, 3 a limit\n" +
			"stopped the run, 4 actions are pending approval, 130 interrupted (Ctrl-C); 129, 143 and 141\n" +
			"when SIGHUP, SIGTERM or a closed standard output ended it (the session is interrupted).",
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(args, f)
		},
	}
	cmd.Flags().StringVar(&f.agent, "agent", "", "agent to run (default: the first agent block)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print events as JSON Lines on stdout; human text goes to stderr")
	cmd.Flags().BoolVar(&f.yes, "yes", false, "approve what policy would ask a person about (never what it denies)")
	cmd.Flags().BoolVar(&f.noInput, "no-input", false, "never prompt: approvals follow permissions.unattended")
	cmd.Flags().StringVar(&f.resume, "resume", "", "continue the session ID (a prefix is enough)")
	cmd.Flags().BoolVar(&f.cont, "continue", false, "continue the agent's most recent session")
	cmd.Flags().BoolVar(&f.acceptConfig, "accept-config-change", false, "with --resume: continue even though the configuration changed since the session ran")
	cmd.Flags().StringVar(&f.engine, "engine", "", "where the loop runs: local (default) or temporal (its workers: harness worker)")
	cmd.Flags().StringVar(&f.temporal, "temporal", "", "with --engine temporal: the Temporal server, HOST:PORT")
	cmd.Flags().StringVar(&f.taskQueue, "task-queue", "", "with --engine temporal: the task queue the session's workers serve")
	cmd.Flags().BoolVar(&f.detach, "detach", false, "with --engine temporal: start the session and return; follow it with harness sessions attach ID")
	return cmd
}

func (c *cli) run(args []string, f runFlags) error {
	if f.resume != "" && f.cont {
		return exitf(exitUsage, "--resume and --continue both choose a session: give one of them")
	}
	stdinTTY := isTerminal(c.stdin)
	interactive := stdinTTY && !f.noInput && len(args) == 1
	// The signals are watched from the start: a Ctrl-C while plugins
	// start is honoured like one during a turn.
	ctx, interrupt, stop := interruptContext(interactive)
	defer stop()
	var turns *turnSignals // Ctrl-C of an interactive session: see interactive.go
	if interactive {
		turns = watchTurnSignals()
		defer turns.stop()
	}
	cfg, err := c.loadConfig(args[0], false)
	if err != nil {
		return err
	}
	if cfg.Agent(f.agent) == nil {
		return c.noSuchAgent(args[0], cfg, f.agent)
	}
	eng, err := c.chooseEngine(cfg, f)
	if err != nil {
		return err
	}
	if eng.name == engineTemporal {
		interactive = false // the session runs on its workers: one task
	}
	// A key that is not set is a configuration problem, reported before
	// any plugin starts or request goes out.
	if diags := config.CheckAPIKeys(cfg); diags.HasErrors() {
		return c.printDiagnostics(cfg.Files, diags, false)
	}
	in := bufio.NewReader(c.stdin)
	task := ""
	resuming := f.resume != "" || f.cont
	if len(args) == 2 {
		task = args[1]
	} else if !stdinTTY && !resuming {
		b, err := io.ReadAll(in)
		if err != nil {
			return exitf(exitUsage, "read the task from standard input: %v", err)
		}
		task = strings.TrimSpace(string(b))
	}
	stdout := watchOutput(c.stdout, interrupt)
	human, humanFile := stdout, c.stdout
	if f.asJSON {
		human, humanFile = c.stderr, c.stderr
	}
	view := newRenderer(human, stdout, f.asJSON, c.displayFor(humanFile))

	storePath, err := c.storePath()
	if err != nil {
		return err
	}
	lines := newLineReader(in)
	if eng.name == engineTemporal {
		var asker *ttyAsker // approvals asked here, answered by signal
		if stdinTTY && !f.noInput {
			asker = &ttyAsker{lines: lines, out: c.stderr, view: view}
		}
		return c.runTemporal(ctx, cfg, f, eng, task, view, storePath, asker)
	}
	tel, err := c.startTelemetry(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.stopTelemetry(ctx, tel) // after r.Close: every event is in
	opts := runner.Options{Config: cfg, Agent: f.agent, StorePath: storePath, StateDir: c.locator.StateFolder(), Builtins: builtinCatalog(), Secrets: c.secrets, Logger: c.logger, Yes: f.yes, Sink: tel.Wrap(view.event), AcceptConfigChange: f.acceptConfig}
	if stdinTTY && !f.noInput {
		opts.Asker = &ttyAsker{lines: lines, out: c.stderr, view: view}
	}
	r, err := runner.Open(ctx, opts)
	if err != nil {
		if why := stoppedBy(ctx); why != nil {
			return exitf(why.code, "%v while starting", why)
		}
		return c.openError(cfg, err)
	}
	defer r.Close()
	r.PrepareModel(ctx)

	if resuming {
		id := f.resume
		if f.cont {
			if id, err = c.latestSession(ctx, r, cfg); err != nil {
				return err
			}
		}
		if err := c.resumeSession(ctx, r, view, id); err != nil {
			if why := stoppedBy(ctx); why != nil {
				_ = r.End(ctx, agent.StatusInterrupted)
				return exitf(why.code, "%v while resuming", why)
			}
			var changed *runner.ConfigChangedError
			if errors.As(err, &changed) {
				return exitf(exitUsage, "%v", err)
			}
			_ = r.End(ctx, agent.StatusError) // when it failed after reopening the session
			return exitf(exitFailed, "resume: %v", err)
		}
	} else {
		if task == "" && interactive {
			if task, err = view.prompt(ctx, lines, turns, "task", false); err != nil {
				return exitf(exitUsage, "no task given")
			}
		}
		if strings.TrimSpace(task) == "" {
			return exitf(exitUsage, "no task: give it as an argument, on standard input, or at the prompt")
		}
		if err := r.Start(ctx, task); err != nil {
			if why := stoppedBy(ctx); why != nil {
				_ = r.End(ctx, agent.StatusInterrupted)
				return exitf(why.code, "%v while starting", why)
			}
			_ = r.End(ctx, agent.StatusError)
			return exitf(exitFailed, "%v", err)
		}
		task = ""
	}
	if resuming && task == "" && r.NeedsInput() && !interactive {
		_ = r.End(ctx, agent.StatusCompleted)
		return exitf(exitUsage, "session %s has nothing left to do: give a message to continue it", r.SessionID())
	}

	var out agent.Outcome
	for {
		if task == "" && r.NeedsInput() && interactive {
			next, err := view.prompt(ctx, lines, turns, "message", out.Status == agent.StatusInterrupted)
			if errors.Is(err, errPromptInterrupted) {
				out = agent.Outcome{Status: agent.StatusInterrupted}
				break
			}
			if err != nil {
				break // end of input (Ctrl-D), or a signal: the session is done
			}
			task = next
		}
		turnCtx, done := ctx, func() {}
		if interactive {
			turnCtx, done = turns.turn(ctx)
		}
		out, err = r.Send(turnCtx, task)
		done()
		task = ""
		if err != nil {
			out = agent.Outcome{Status: agent.StatusError, Err: sdk.AsError(err)}
		}
		view.finishTurn(out)
		if !interactive || ctx.Err() != nil {
			break
		}
		if out.Status == agent.StatusInterrupted { // Ctrl-C stopped this turn only
			if err := r.Interrupted(ctx, view.partialAnswer()); err != nil {
				out = agent.Outcome{Status: agent.StatusError, Err: sdk.AsError(err)}
				break
			}
			continue
		}
		if out.Status != agent.StatusCompleted {
			break
		}
	}
	// The loop is done and no plugin is called again: they stop while the
	// session's end is recorded and the result printed. r.Close (deferred)
	// waits until every one is reaped, after the result is out and the exit
	// code decided.
	r.StopPlugins()
	if err := r.End(ctx, out.Status); err != nil {
		fmt.Fprintf(c.stderr, "harness: closing the session: %v\n", err)
	}
	view.closing(r.SessionID(), out, r.Totals())
	// Whoever reads standard output sees its end now, not after the plugins
	// are reaped and the store is closed.
	c.endOutput()
	if out.Status == agent.StatusInterrupted {
		return silentExit(interruptedExit(ctx))
	}
	return silentExit(statusExit(out.Status))
}

// resumeSession reopens session id, counts what its earlier runs used (the
// closing line is for the whole session) and prints a banner.
func (c *cli) resumeSession(ctx context.Context, r *runner.Runner, view *renderer, id string) error {
	if err := r.Resume(ctx, id); err != nil {
		return err
	}
	evs, err := r.Store().Events(ctx, r.SessionID(), 0)
	if err != nil {
		return err
	}
	for _, ev := range evs {
		view.absorb(ev)
	}
	view.banner(r.SessionID(), r.Totals())
	return nil
}

// latestSession is the most recent session of the agent with this
// configuration file, for --continue.
func (c *cli) latestSession(ctx context.Context, r *runner.Runner, cfg *config.Config) (string, error) {
	list, err := r.Store().ListSessions(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range list { // newest first
		if s.Agent == r.Agent().Name && (s.ConfigPath == "" || s.ConfigPath == cfg.Path) {
			return s.ID, nil
		}
	}
	return "", exitf(exitUsage, "--continue: agent %q of %s has no session yet; start one with harness run %s TASK", r.Agent().Name, cfg.Path, cfg.Path)
}

// openError is the exit of a run that could not open: a configuration
// problem is reported as `validate` reports it (exit 2), anything else is
// a failed run.
func (c *cli) openError(cfg *config.Config, err error) error {
	var ce *runner.ConfigError
	if errors.As(err, &ce) {
		return c.printDiagnostics(cfg.Files, ce.Diags, false)
	}
	return exitf(exitFailed, "%v", err)
}

// noSuchAgent is the usage error of an --agent that names no agent.
func (c *cli) noSuchAgent(path string, cfg *config.Config, name string) error {
	if len(cfg.Agents) == 0 {
		return exitf(exitUsage, "%s declares no agent", path)
	}
	names := make([]string, len(cfg.Agents))
	for i, a := range cfg.Agents {
		names[i] = a.Name
	}
	return exitf(exitUsage, "%s has no agent %q; its agents: %s (pass one with --agent)", path, name, strings.Join(names, ", "))
}

func statusExit(status string) int {
	switch status {
	case agent.StatusCompleted:
		return exitOK
	case agent.StatusLimit:
		return exitLimit
	case agent.StatusPending:
		return exitPending
	case agent.StatusInterrupted:
		return exitInterrupted
	}
	return exitFailed
}
