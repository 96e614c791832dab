package pluginhost

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harness-agent/harness/sdk"
)

// process is a plugin process and its successors: a plugin's own, or the
// host's shared process, which serves every plugin registered with
// Spec.Shared. A crash ends it; the next use starts a fresh one, a new
// generation.
type process struct {
	host    *Host
	spec    Spec // a plugin's own process: what it runs; zero when shared
	shared  bool
	stderr  *tailBuffer
	program pinned // a third-party plugin's verified program

	mu      sync.Mutex
	cl      *plugin.Client
	rpc     plugin.ClientProtocol
	cmd     *exec.Cmd // cl's process: its exit status, once cl.Exited()
	pidOf   int       // cl's process id
	starts  int       // processes started so far: the current generation
	members []string  // the plugins with a client on the current process
	// ended says how the process of generation ended.gen stopped, for the
	// plugins whose calls failed with it after another plugin's call had
	// reported it.
	ended struct {
		gen int
		msg string
	}
}

func newProcess(h *Host, spec Spec) *process {
	return &process{host: h, spec: spec, stderr: newTailBuffer(16 << 10)}
}

func newSharedProcess(h *Host) *process {
	return &process{host: h, shared: true, stderr: newTailBuffer(16 << 10)}
}

// connect returns the connection to the running process and its
// generation, starting a process if none runs. who is the plugin asking.
func (p *process) connect(ctx context.Context, who string) (plugin.ClientProtocol, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cl != nil && !p.cl.Exited() && !dead(p.pidOf) {
		return p.rpc, p.starts, nil
	}
	if p.cl != nil {
		// It died before this call (killed, or crashed in a goroutine of
		// its own). The report is kept for the calls of other plugins of
		// the process that it failed, and logged, since this call gets
		// a fresh process.
		msg := p.end(p.starts)
		p.host.opts.Logger.Warn("plugin process ended; starting a fresh one", "name", p.label(who),
			"report", p.host.opts.Secrets.String(msg))
		p.cl = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	cl, rpc, err := p.start(ctx, who)
	if err != nil {
		return nil, 0, err
	}
	p.cl, p.rpc, p.members, p.pidOf = cl, rpc, nil, pidOf(cl)
	p.starts++
	return rpc, p.starts, nil
}

// start starts the process and connects to it. A ctx that ends before the
// handshake kills the process at once: a Ctrl-C during a start that hangs
// does not wait for StartTimeout.
func (p *process) start(ctx context.Context, who string) (*plugin.Client, plugin.ClientProtocol, error) {
	// The command's own context only ever ends by abort: once connected,
	// the plugin outlives ctx (it is long-lived) and is stopped by Kill.
	cmdCtx, abort := context.WithCancel(context.Background())
	opts := p.host.opts
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.HostPluginSets(),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Managed:          true,
		SkipHostEnv:      true,
		StartTimeout:     opts.StartTimeout,
		Stderr:           p.stderr,
		SyncStderr:       p.stderr, // what the plugin writes to os.Stderr after Serve
		SyncStdout:       p.stderr,
		Logger:           p.logger(),
	}
	var cmd *exec.Cmd
	switch {
	case p.shared:
		cmd = p.host.self.command(cmdCtx, "plugin", "serve", "--shared")
	case p.spec.Builtin:
		serves := p.spec.Serves
		if serves == "" {
			serves = p.spec.Name
		}
		cmd = p.host.self.command(cmdCtx, "plugin", "serve", serves)
	default:
		// Verified once, then every start runs the pinned bytes (go-plugin's
		// SecureConfig would hash the path, then run it: two opens).
		prog, err := p.program.get(p.spec.Name, p.spec.Path, p.spec.SHA256)
		if err != nil {
			abort()
			return nil, nil, err
		}
		cmd = prog.command(cmdCtx)
		cfg.AutoMTLS = true
	}
	cmd.Env = append(BaseEnv(), p.spec.Env...)
	isolate(cmd)
	cfg.Cmd = cmd
	p.cmd = cmd
	p.stderr.Reset()

	cl := plugin.NewClient(cfg)
	connected := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			abort()
		case <-connected:
		}
	}()
	// While the process starts, the host has time to spare.
	go warmOnce.Do(warmMessages)
	rpc, err := cl.Client()
	close(connected)
	if err != nil {
		cl.Kill()
		abort()
		if ctx.Err() != nil {
			return nil, nil, &sdk.Error{Kind: sdk.KindCanceled, Message: fmt.Sprintf("plugin %q: its start was canceled", who)}
		}
		return nil, nil, p.startError(cl, who, err)
	}
	return cl, rpc, nil
}

// dispenseFailed stops the process of generation gen, on which a plugin
// could not get its client, and says why.
func (p *process) dispenseFailed(gen int, who string, err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cl := p.cl
	if cl != nil && p.starts == gen {
		cl.Kill()
		p.cl = nil
	}
	return p.startError(cl, who, err)
}

// joined records that plugin name has a client on the current process.
func (p *process) joined(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.members {
		if m == name {
			return
		}
	}
	p.members = append(p.members, name)
}

// label names the process in logs: the plugin's name, or "shared
// built-ins".
func (p *process) label(who string) string {
	if !p.shared {
		return who
	}
	return "shared built-ins"
}

func (p *process) logger() hclog.Logger {
	if p.shared {
		return p.host.opts.Logger.Named("plugin.shared")
	}
	return p.host.opts.Logger.Named("plugin." + p.spec.Name)
}

// plugin names who in a message, with the plugins it shares a process
// with. Called with p.mu held.
func (p *process) plugin(who string) string {
	if !p.shared {
		return fmt.Sprintf("plugin %q", who)
	}
	var others []string
	for _, m := range p.members {
		if m != who {
			others = append(others, m)
		}
	}
	if len(others) == 0 {
		return fmt.Sprintf("plugin %q (in the shared built-in process)", who)
	}
	return fmt.Sprintf("plugin %q (in the built-in process it shares with %s)", who, strings.Join(others, ", "))
}

// exitStatus says how the process of cl ended ("exited with status 3",
// "killed by SIGKILL"), "" while it runs. go-plugin has waited for the
// process, and drained its stderr, once Exited says so.
func (p *process) exitStatus(cl *plugin.Client) string {
	if cl == nil || p.cmd == nil || !cl.Exited() || p.cmd.ProcessState == nil {
		return ""
	}
	return describeExit(p.cmd.ProcessState)
}

func (p *process) startError(cl *plugin.Client, who string, err error) error {
	what := p.spec.Path
	switch {
	case p.shared:
		what = "built-in, in the shared process"
	case p.spec.Builtin:
		what = "built-in"
	}
	msg := fmt.Sprintf("plugin %q (%s) failed to start: %v", who, what, err)
	if st := p.exitStatus(cl); st != "" {
		msg += " (it " + st + ")"
	}
	if strings.Contains(err.Error(), "Unrecognized remote plugin message") {
		msg += "; the plugin printed to stdout before the handshake: plugins must log to stderr and let the SDK own stdout"
	}
	if tail := strings.TrimSpace(p.stderr.String()); tail != "" {
		msg += "\nplugin stderr:\n" + tail
	}
	return p.host.opts.Secrets.Error(&sdk.Error{Kind: sdk.KindProcessExit, Message: msg})
}

// failure turns err, a call of plugin who on the process of generation
// gen that failed in the transport or the plugin, into a structured error.
// When the process is gone it is a process_exit error with the stderr
// tail, and the process is dropped so the next call starts a fresh one.
func (p *process) failure(gen int, who string, err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cl == nil || p.starts != gen {
		if p.ended.gen == gen && p.ended.msg != "" {
			// Another plugin of the same process has reported its end.
			return &sdk.Error{Kind: sdk.KindProcessExit, Message: p.plugin(who) + " " + p.ended.msg}
		}
		return &sdk.Error{Kind: sdk.KindProcessExit, Message: fmt.Sprintf("%s restarted during the call: %v", p.plugin(who), err)}
	}
	if status.Code(err) != codes.Unavailable && !p.cl.Exited() {
		return &sdk.Error{Kind: sdk.KindInternal, Message: fmt.Sprintf("plugin %q: %v", who, status.Convert(err).Message())}
	}
	// Wait briefly for the process to be reaped: go-plugin reaps it only
	// after it has read the whole stderr pipe, so the report then holds the
	// plugin's last words.
	for i := 0; i < 50 && !p.cl.Exited(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	msg := p.end(gen)
	p.cl, p.rpc = nil, nil
	p.host.opts.Logger.Warn("plugin exited", "name", p.label(who), "error", p.host.opts.Secrets.Error(err))
	return &sdk.Error{Kind: sdk.KindProcessExit, Message: p.plugin(who) + " " + msg}
}

// end stops the current process (of generation gen), records how it
// ended for every plugin whose call it failed, and returns that report.
// Called with p.mu held.
func (p *process) end(gen int) string {
	exited := p.cl.Exited() || dead(p.pidOf)
	p.cl.Kill()
	msg := "exited during the call"
	switch st := p.exitStatus(p.cl); {
	case st != "" && exited:
		msg = "exited during the call: it " + st
	case st != "":
		msg = "stopped answering during the call and was stopped (" + st + ")"
	}
	if tail := strings.TrimSpace(p.stderr.String()); tail != "" {
		msg += "; its stderr ended with:\n" + tail
	}
	p.ended.gen, p.ended.msg = gen, msg
	return msg
}

func (p *process) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cl == nil || p.cl.Exited() {
		return 0
	}
	return pidOf(p.cl)
}

// generation counts the processes started so far.
func (p *process) generation() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}

func (p *process) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cl != nil {
		p.cl.Kill()
		p.cl, p.rpc = nil, nil
	}
	p.program.close()
}
