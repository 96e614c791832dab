package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/core/session"
)

// cli holds what every command shares: its streams, logger and where the
// session store is.
type cli struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	logger         hclog.Logger
	locator        session.Locator
	color          string // --color: auto, always or never
	// secrets are the values nothing this process writes may show: the
	// configuration's provider keys and secret settings. stderr, and the
	// logger that carries the plugins' own log lines, redact through them.
	secrets *redact.Secrets
}

func execute(args []string) int {
	defer pluginhost.KillAll()
	secrets := &redact.Secrets{}
	stderr := secrets.Writer(os.Stderr)
	c := &cli{stdout: os.Stdout, stderr: stderr, stdin: os.Stdin, logger: newLogger(stderr), secrets: secrets}
	root := c.rootCommand()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = exitf(exitUsage, "%v (see harness --help)", err)
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(c.stderr, "harness: %s\n", msg)
	}
	return exitCode(err)
}

// endOutput closes the process's standard output when the command writes
// to it (not in tests, where stdout is a buffer): nothing is printed there
// after the run's closing line, and a reader waiting for end of file (a
// pipe, $(...)) need not wait for the plugins to be stopped.
func (c *cli) endOutput() {
	if c.stdout == os.Stdout {
		_ = os.Stdout.Close()
	}
}

func newLogger(w io.Writer) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv("HARNESS_LOG"))
	if level == hclog.NoLevel {
		level = hclog.Off
	}
	return hclog.New(&hclog.LoggerOptions{Name: "harness", Level: level, Output: w})
}

func (c *cli) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "harness",
		Short:         "Run LLM agents declared in HCL, with every tool and provider out of process",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&c.locator.StateDir, "state-dir", "",
		"folder of the session store (default: $"+session.EnvStateDir+", else $XDG_STATE_HOME/harness, else ~/.local/state/harness)")
	root.PersistentFlags().StringVar(&c.locator.Store, "store", "",
		"the session store itself: PATH or sqlite://PATH (default: $"+session.EnvStore+", else harness.db in the state folder)")
	root.Version = versionString()
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&c.color, "color", colorAuto, "colour output: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always or never")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return validColor(c.color) }
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return exitf(exitUsage, "%v\n%s", err, strings.TrimSpace(cmd.UsageString()))
	})
	root.AddCommand(
		c.validateCommand(),
		c.fmtCommand(),
		c.pluginsCommand(),
		c.runCommand(),
		c.workerCommand(),
		c.sessionsCommand(),
		c.actionsCommand(),
		c.versionCommand(),
		c.pluginServeCommand(),
	)
	return root
}

// usageArgs wraps cobra's argument checks so that a wrong count exits 2.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return exitf(exitUsage, "%v\nusage: %s", err, cmd.UseLine())
		}
		return nil
	}
}
