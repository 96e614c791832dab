package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/runner"
	"github.com/harness-agent/harness/sdk"
)

type runFlags struct {
	agent   string
	asJSON  bool
	yes     bool
	noInput bool
	resume  string
	// acceptConfig resumes a session whose configuration changed since.
	acceptConfig bool
}

func (c *cli) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [--agent NAME] [--json] [--yes] [--no-input] [--resume ID] CONFIG [TASK]",
		Short: "Run an agent on a task",
		Long: "Runs an agent of CONFIG (the first one unless --agent names another) on TASK.\n" +
			"TASK is the argument; else standard input when it is not a terminal; else harness asks\n" +
			"for it, and then for each next message of the same session until end of input (Ctrl-D).\n\n" +
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
	cmd.Flags().BoolVar(&f.acceptConfig, "accept-config-change", false, "with --resume: continue even though the configuration changed since the session ran")
	return cmd
}

func (c *cli) run(args []string, f runFlags) error {
	stdinTTY := isTerminal(c.stdin)
	interactive := stdinTTY && !f.noInput && len(args) == 1
	// The signals are watched from the start: a Ctrl-C while plugins
	// start is honoured like one during a turn.
	ctx, interrupt, stop := interruptContext(interactive)
	defer stop()
	cfg, err := c.loadConfig(args[0], false)
	if err != nil {
		return err
	}
	if cfg.Agent(f.agent) == nil {
		if f.agent == "" {
			return exitf(exitUsage, "%s declares no agent", args[0])
		}
		return exitf(exitUsage, "%s has no agent %q", args[0], f.agent)
	}
	in := bufio.NewReader(c.stdin)
	task := ""
	if len(args) == 2 {
		task = args[1]
	} else if !stdinTTY && f.resume == "" {
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
	view := newRenderer(human, stdout, f.asJSON, isTerminal(humanFile))

	storePath, err := c.storePath()
	if err != nil {
		return err
	}
	opts := runner.Options{Config: cfg, Agent: f.agent, StorePath: storePath, Builtins: builtinCatalog(), Logger: c.logger, Yes: f.yes, Sink: view.event, AcceptConfigChange: f.acceptConfig}
	if stdinTTY && !f.noInput {
		opts.Asker = &ttyAsker{in: in, out: c.stderr, view: view}
	}
	r, err := runner.Open(ctx, opts)
	if err != nil {
		if why := stoppedBy(ctx); why != nil {
			return exitf(why.code, "%v while starting", why)
		}
		return exitf(exitFailed, "%v", err)
	}
	defer r.Close()

	if f.resume != "" {
		if err := r.Resume(ctx, f.resume); err != nil {
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
			if task, err = view.prompt(in, "task"); err != nil {
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
	if f.resume != "" && task == "" && r.NeedsInput() && !interactive {
		_ = r.End(ctx, agent.StatusCompleted)
		return exitf(exitUsage, "session %s has nothing left to do: give a message to continue it", r.SessionID())
	}

	var out agent.Outcome
	for {
		if task == "" && r.NeedsInput() && interactive {
			next, err := view.prompt(in, "message")
			if err != nil || strings.TrimSpace(next) == "" && errors.Is(err, io.EOF) {
				break
			}
			task = next
		}
		out, err = r.Send(ctx, task)
		task = ""
		if err != nil {
			out = agent.Outcome{Status: agent.StatusError, Err: sdk.AsError(err)}
		}
		view.finishTurn(out)
		if !interactive || out.Status != agent.StatusCompleted {
			break
		}
	}
	if err := r.End(ctx, out.Status); err != nil {
		fmt.Fprintf(c.stderr, "harness: closing the session: %v\n", err)
	}
	view.closing(r.SessionID(), out, r.Totals())
	if out.Status == agent.StatusInterrupted {
		return silentExit(interruptedExit(ctx))
	}
	return silentExit(statusExit(out.Status))
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
