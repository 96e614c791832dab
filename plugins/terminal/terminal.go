package terminal

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/harness-agent/harness/plugins/terminal/internal/helper"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

// description is the prose the model reads about the tool.
//
//go:embed terminal.md
var description string

const version = "0.1.0"

// inputSchema is the tool's input schema, built on first use (see configSchema).
var inputSchema = sync.OnceValue(func() json.RawMessage {
	return schema.Object(
		schema.String("command", "The command line, run by bash -c in the workspace directory.").Required(),
		schema.Integer("timeout_seconds", "Seconds before the command is killed. Defaults to the configured timeout; values above the configured maximum are clamped.").Min(1),
	).JSON()
})

// runSpec is one command as the platform code runs it.
type runSpec struct {
	shell    string
	command  string
	dir      string
	env      []string
	sandbox  *sandboxSpec // nil: no sandbox
	timeout  time.Duration
	progress sdk.Progress
}

// outcome is how a command ended.
type outcome struct {
	output   string        // capped, stdout and stderr in arrival order
	exitCode int           // the shell's; 128+N when a signal N killed it
	signal   string        // the signal that killed the shell, if one did
	stopped  sdk.ErrorKind // timeout or canceled when the plugin stopped it
	deadline bool          // stopped because the call's deadline passed, not timeout_seconds
}

var registerShutdown sync.Once

// New returns the terminal tool plugin.
func New() *sdk.ToolSet {
	registerShutdown.Do(func() { sdk.OnShutdown(shutdown) })
	t := &terminal{}
	return &sdk.ToolSet{
		Name:    "terminal",
		Version: version,
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{
				Name:         "terminal",
				Description:  description,
				InputSchema:  inputSchema(),
				Capabilities: sdk.Capabilities{Reads: true, Writes: true, Executes: true, Network: true},
			},
			Run: t.run,
		}},
		ConfigSchema: configSchema(),
		OnConfigure:  t.configure,
	}
}

type terminal struct {
	mu         sync.RWMutex
	cfg        config
	configured bool
}

func (t *terminal) configure(_ context.Context, pc sdk.PluginConfig) error {
	cfg, err := parseConfig(pc)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cfg, t.configured = cfg, true
	return nil
}

func (t *terminal) config() (config, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.cfg, t.configured
}

func (t *terminal) run(ctx context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error) {
	var args struct {
		Command        string   `json:"command"`
		TimeoutSeconds *float64 `json:"timeout_seconds"`
	}
	if err := sdk.DecodeArgs(call, &args); err != nil {
		return sdk.Result{}, err
	}
	if strings.TrimSpace(args.Command) == "" {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "terminal: command is empty")
	}
	if os.Getenv(helper.Env) != "" {
		return sdk.Result{}, sdk.Errorf(sdk.KindInternal,
			"terminal: refusing to run commands: this process was started as a command helper but did not divert into it")
	}
	cfg, ok := t.config()
	if !ok {
		return sdk.Result{}, sdk.Errorf(sdk.KindInternal, "terminal: the plugin was not configured: the host must send the workspace before the first call")
	}

	timeout := cfg.timeout
	var notes []string
	if args.TimeoutSeconds != nil {
		if *args.TimeoutSeconds <= 0 {
			return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "terminal: timeout_seconds must be positive, not %g", *args.TimeoutSeconds)
		}
		timeout = *args.TimeoutSeconds
		if timeout > cfg.maxTimeout {
			notes = append(notes, fmt.Sprintf("note: timeout_seconds %s is above the maximum of %s; the command ran with a %s timeout",
				seconds(timeout), seconds(cfg.maxTimeout), seconds(cfg.maxTimeout)))
			timeout = cfg.maxTimeout
		}
	}

	spec := runSpec{
		shell:    shell(),
		command:  args.Command,
		dir:      cfg.workspace,
		env:      commandEnv(os.Environ()),
		timeout:  duration(timeout),
		progress: progress,
	}
	if cfg.sandbox == sandboxWorkspaceWrite {
		sb, note, err := planSandbox(cfg)
		if err != nil {
			return sdk.Result{}, sdk.Errorf(sdk.KindInternal, "%v", err)
		}
		if note != "" {
			notes = append(notes, note)
		}
		if sb != nil {
			spec.sandbox = sb
			spec.env = withEnv(spec.env, "TMPDIR", sb.tmpDir())
			// Home is read-only in the sandbox: caches (Go's build cache,
			// pip's…) go to the private temp dir.
			spec.env = withEnv(spec.env, "XDG_CACHE_HOME", filepath.Join(sb.tmpDir(), ".cache"))
		}
	}
	var missing []missingPath
	if spec.sandbox != nil {
		missing = missingProtected(cfg.workspace, cfg.protected)
	}
	out, err := execute(ctx, spec)
	for _, p := range removeCreated(cfg.workspace, missing) {
		notes = append(notes, fmt.Sprintf("note: the command created %s, a protected path it must not create; it was removed", p))
	}
	return result(args.Command, out, err, timeout, notes), nil
}

// duration converts seconds, saturating where a Duration ends (292 years).
func duration(seconds float64) time.Duration {
	if seconds >= float64(math.MaxInt64)/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(seconds * float64(time.Second))
}

// shell is bash where there is one, else the POSIX shell: an absolute
// path, which is all the helper starts (it does no PATH lookup). A bash
// found through a relative PATH entry (returned only with
// GODEBUG=execerrdot=0) does not count.
func shell() string {
	if p, err := exec.LookPath("bash"); err == nil && filepath.IsAbs(p) {
		return p
	}
	return "/bin/sh"
}

// result turns an outcome into what the model reads (the output, notes and
// how the command ended) and what people see (a terminal view). A non-zero
// exit is a successful call: the exit code is the answer.
func result(command string, out outcome, err error, timeout float64, notes []string) sdk.Result {
	view := sdk.TerminalView{Command: command, ExitCode: out.exitCode, Output: out.output}
	var b strings.Builder
	switch {
	case out.output != "":
		b.WriteString(out.output)
		if !strings.HasSuffix(out.output, "\n") {
			b.WriteByte('\n')
		}
	case err == nil:
		b.WriteString("(no output)\n")
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}

	var fail *sdk.Error
	switch {
	case err != nil:
		fail = sdk.AsError(err)
		b.WriteString(fail.Message)
	case out.stopped == sdk.KindTimeout && out.deadline:
		fail = sdk.Errorf(sdk.KindTimeout, "terminal: the call's deadline passed; the command and every process it started were killed")
		b.WriteString("deadline passed: the command and every process it started were killed")
	case out.stopped == sdk.KindTimeout:
		fail = sdk.Errorf(sdk.KindTimeout, "terminal: the command timed out after %s; it and every process it started were killed", seconds(timeout))
		fmt.Fprintf(&b, "timed out after %s: the command and every process it started were killed", seconds(timeout))
	case out.stopped != "":
		fail = sdk.Errorf(out.stopped, "terminal: the command was canceled; it and every process it started were killed")
		b.WriteString("canceled: the command and every process it started were killed")
	default:
		fmt.Fprintf(&b, "exit code: %d", out.exitCode)
		if out.signal != "" {
			fmt.Fprintf(&b, " (killed by %s)", out.signal)
		}
	}
	if fail != nil {
		view.ExitCode = -1
	}
	return sdk.Result{Content: b.String(), Presentation: view, Err: fail}
}
