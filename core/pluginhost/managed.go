package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harness-agent/harness/sdk"
)

// managed is one plugin's long-lived client. A crash clears it; the next
// use starts a fresh process.
type managed struct {
	spec    Spec
	host    *Host
	stderr  *tailBuffer
	program pinned // a third-party plugin's verified program

	mu     sync.Mutex
	cl     *plugin.Client
	raw    any
	cmd    *exec.Cmd // cl's process: its exit status, once cl.Exited()
	starts int       // processes started so far

	// apply is the last configuration sent, replayed on every fresh
	// process; appliedTo is the process (starts) it last reached. seq
	// numbers the Configure calls sent; pending is one sent without
	// waiting for its answer (a plugin that orders calls after it).
	cfgMu     sync.Mutex
	apply     func(ctx context.Context, raw any, seq uint64) error
	appliedTo int
	seq       uint64
	pending   *pendingConfig
	// ordered: a Describe of this plugin said it orders an Execute after
	// the Configure it names; kept across restarts, which run the same
	// pinned program.
	ordered atomic.Bool
}

// pendingConfig is a Configure sent to the process of raw and not yet
// known to be answered.
type pendingConfig struct {
	raw  any
	gen  int
	seq  uint64
	done chan struct{} // closed once err is set
	err  error
}

// configure records apply as the plugin's configuration and sends it. A
// tool plugin that orders an Execute after the Configure it names gets it
// without waiting for the answer, which the next call awaits and whose
// failure fails that call; any other plugin is answered here.
func (m *managed) configure(ctx context.Context, apply func(ctx context.Context, raw any, seq uint64) error) error {
	m.cfgMu.Lock()
	defer m.cfgMu.Unlock()
	// Two Configures in flight at once could reach the plugin's handler
	// in either order: the next is sent once the previous is answered.
	if _, err := m.settle(ctx); err != nil {
		return err
	}
	m.apply, m.appliedTo = apply, -1
	raw, err := m.client(ctx)
	if err != nil {
		return err
	}
	if m.orders(raw) {
		m.send(ctx, raw)
		return nil
	}
	return m.applyNow(ctx, raw)
}

// configured returns the client of a running process that has received
// the plugin's configuration, starting and configuring one if needed.
func (m *managed) configured(ctx context.Context) (any, error) {
	raw, err := m.client(ctx)
	if err != nil {
		return nil, err
	}
	m.cfgMu.Lock()
	defer m.cfgMu.Unlock()
	p, err := m.settle(ctx)
	if err != nil {
		return nil, err
	}
	if p != nil && p.err != nil && p.raw == raw && p.gen == m.generation() {
		// This process has just answered the last Configure with a
		// refusal: that answer is this call's, not a second Configure's.
		return nil, m.callError(ctx, raw, p.err)
	}
	if err := m.applyNow(ctx, raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// pipelined is configured for a call that the plugin runs only after the
// Configure it names: it returns the Configure such a call must name (nil
// when the process has its configuration) instead of waiting for it.
func (m *managed) pipelined(ctx context.Context) (any, *pendingConfig, error) {
	raw, err := m.client(ctx)
	if err != nil {
		return nil, nil, err
	}
	m.cfgMu.Lock()
	defer m.cfgMu.Unlock()
	if p := m.pending; p != nil && p.raw == raw && !isClosed(p.done) {
		return raw, p, nil
	}
	if _, err := m.settle(ctx); err != nil {
		return nil, nil, err
	}
	if m.apply == nil || m.appliedTo == m.generation() {
		return raw, nil, nil
	}
	if m.orders(raw) {
		return raw, m.send(ctx, raw), nil
	}
	return raw, nil, m.applyNow(ctx, raw)
}

// orders reports whether the process of raw runs an Execute only after
// the Configure it names: a built-in always (this SDK, in the harness
// binary), a third-party tool plugin once its Describe said so.
func (m *managed) orders(raw any) bool {
	c, ok := raw.(*sdk.ToolClient)
	return ok && (m.spec.Builtin || m.ordered.Load() || c.OrdersConfigure())
}

// applyNow sends the configuration to the process of raw and waits for
// its answer, unless that process has it. Called with cfgMu held.
func (m *managed) applyNow(ctx context.Context, raw any) error {
	gen := m.generation()
	if m.apply == nil || m.appliedTo == gen {
		return nil
	}
	m.seq++
	if err := m.apply(ctx, raw, m.seq); err != nil {
		return m.callError(ctx, raw, err)
	}
	m.appliedTo = gen
	return nil
}

// send sends the configuration to the process of raw without waiting for
// its answer. Called with cfgMu held and no Configure pending. The call
// outlives ctx's cancellation (a caller may cancel once Configure has
// returned); a dead process ends it.
func (m *managed) send(ctx context.Context, raw any) *pendingConfig {
	m.seq++
	p := &pendingConfig{raw: raw, gen: m.generation(), seq: m.seq, done: make(chan struct{})}
	apply := m.apply
	go func() {
		p.err = apply(context.WithoutCancel(ctx), raw, p.seq)
		close(p.done)
	}()
	m.pending = p
	return p
}

// settle waits for the pending Configure, if any, records its outcome and
// returns it: on success the process has the configuration; a failure is
// left to the caller (configured returns it) or to the next call, which
// sends the configuration again and gets the same answer (as without
// pipelining). Called with cfgMu held.
func (m *managed) settle(ctx context.Context) (*pendingConfig, error) {
	p := m.pending
	if p == nil {
		return nil, nil
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, m.callError(ctx, p.raw, ctx.Err())
	}
	m.pending = nil
	if p.err == nil && p.gen == m.generation() && m.appliedTo == -1 {
		m.appliedTo = p.gen
	}
	return p, nil
}

// await waits for the pending Configure p that a call named and returns
// its failure as the call's error.
func (m *managed) await(ctx context.Context, p *pendingConfig) error {
	if !isClosed(p.done) {
		select {
		case <-p.done:
		case <-ctx.Done():
			return m.callError(ctx, p.raw, ctx.Err())
		}
	}
	m.cfgMu.Lock()
	defer m.cfgMu.Unlock()
	if m.pending == p {
		_, _ = m.settle(ctx)
	}
	return m.callError(ctx, p.raw, p.err)
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// client returns the dispensed gRPC client, starting the plugin if needed.
func (m *managed) client(ctx context.Context) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cl != nil && !m.cl.Exited() {
		return m.raw, nil
	}
	if m.cl != nil {
		m.cl.Kill()
		m.cl = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cl, raw, err := m.start(ctx)
	if err != nil {
		return nil, err
	}
	m.cl, m.raw = cl, raw
	m.starts++
	return raw, nil
}

// start starts the plugin's process and connects to it. A ctx that ends
// before the handshake kills the process at once: a Ctrl-C during a start
// that hangs does not wait for StartTimeout.
func (m *managed) start(ctx context.Context) (*plugin.Client, any, error) {
	// The command's own context only ever ends by abort: once connected,
	// the plugin outlives ctx (it is long-lived) and is stopped by Kill.
	cmdCtx, abort := context.WithCancel(context.Background())
	opts := m.host.opts
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.HostPluginSets(),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Managed:          true,
		SkipHostEnv:      true,
		StartTimeout:     opts.StartTimeout,
		Stderr:           m.stderr,
		SyncStderr:       m.stderr, // what the plugin writes to os.Stderr after Serve
		SyncStdout:       m.stderr,
		Logger:           m.logger(),
	}
	var cmd *exec.Cmd
	if m.spec.Builtin {
		serves := m.spec.Serves
		if serves == "" {
			serves = m.spec.Name
		}
		cmd = m.host.self.command(cmdCtx, "plugin", "serve", serves)
	} else {
		// Verified once, then every start runs the pinned bytes (go-plugin's
		// SecureConfig would hash the path, then run it: two opens).
		prog, err := m.program.get(m.spec.Name, m.spec.Path, m.spec.SHA256)
		if err != nil {
			abort()
			return nil, nil, err
		}
		cmd = prog.command(cmdCtx)
		cfg.AutoMTLS = true
	}
	cmd.Env = append(BaseEnv(), m.spec.Env...)
	isolate(cmd)
	cfg.Cmd = cmd
	m.cmd = cmd
	m.stderr.Reset()

	cl := plugin.NewClient(cfg)
	connected := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			abort()
		case <-connected:
		}
	}()
	rpc, err := cl.Client()
	close(connected)
	if err != nil {
		cl.Kill()
		abort()
		if ctx.Err() != nil {
			return nil, nil, &sdk.Error{Kind: sdk.KindCanceled, Message: fmt.Sprintf("plugin %q: its start was canceled", m.spec.Name)}
		}
		return nil, nil, m.startError(cl, err)
	}
	raw, err := rpc.Dispense(m.spec.Kind)
	if err != nil {
		cl.Kill()
		return nil, nil, m.startError(cl, err)
	}
	m.host.opts.Logger.Debug("plugin started", "name", m.spec.Name, "kind", m.spec.Kind, "pid", pidOf(cl))
	return cl, raw, nil
}

func (m *managed) logger() hclog.Logger {
	return m.host.opts.Logger.Named("plugin." + m.spec.Name)
}

// exitStatus says how the process of cl ended ("exited with status 3",
// "killed by SIGKILL"), "" while it runs. go-plugin has waited for the
// process, and drained its stderr, once Exited says so.
func (m *managed) exitStatus(cl *plugin.Client) string {
	if cl == nil || m.cmd == nil || !cl.Exited() || m.cmd.ProcessState == nil {
		return ""
	}
	return describeExit(m.cmd.ProcessState)
}

func (m *managed) startError(cl *plugin.Client, err error) error {
	what := m.spec.Path
	if m.spec.Builtin {
		what = "built-in"
	}
	msg := fmt.Sprintf("plugin %q (%s) failed to start: %v", m.spec.Name, what, err)
	if st := m.exitStatus(cl); st != "" {
		msg += " (it " + st + ")"
	}
	if strings.Contains(err.Error(), "Unrecognized remote plugin message") {
		msg += "; the plugin printed to stdout before the handshake: plugins must log to stderr and let the SDK own stdout"
	}
	if tail := strings.TrimSpace(m.stderr.String()); tail != "" {
		msg += "\nplugin stderr:\n" + tail
	}
	return m.host.opts.Secrets.Error(&sdk.Error{Kind: sdk.KindProcessExit, Message: msg})
}

// callError turns a failed RPC into a structured error, without the
// host's secrets (a plugin may put its key in its error or on its stderr).
func (m *managed) callError(ctx context.Context, raw any, err error) error {
	return m.host.opts.Secrets.Error(m.callFailure(ctx, raw, err))
}

// callFailure is callError before redaction. When the plugin process is
// gone it is a process_exit error with the stderr tail, and the client is
// dropped so the next call starts a fresh process.
func (m *managed) callFailure(ctx context.Context, raw any, err error) error {
	if err == nil {
		return nil
	}
	var se *sdk.Error
	if errors.As(err, &se) {
		return err
	}
	if ctx.Err() != nil || DeadlineReached(ctx) {
		if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &sdk.Error{Kind: sdk.KindTimeout, Message: fmt.Sprintf("plugin %q did not answer before the deadline", m.spec.Name)}
		}
		return &sdk.Error{Kind: sdk.KindCanceled, Message: fmt.Sprintf("call to plugin %q canceled", m.spec.Name)}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cl == nil || m.raw != raw {
		return &sdk.Error{Kind: sdk.KindProcessExit, Message: fmt.Sprintf("plugin %q restarted during the call: %v", m.spec.Name, err)}
	}
	if status.Code(err) != codes.Unavailable && !m.cl.Exited() {
		return &sdk.Error{Kind: sdk.KindInternal, Message: fmt.Sprintf("plugin %q: %v", m.spec.Name, status.Convert(err).Message())}
	}
	// Wait briefly for the process to be reaped: go-plugin reaps it only
	// after it has read the whole stderr pipe, so the report then holds the
	// plugin's last words.
	for i := 0; i < 50 && !m.cl.Exited(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	exited := m.cl.Exited()
	m.cl.Kill()
	msg := fmt.Sprintf("plugin %q exited during the call", m.spec.Name)
	switch st := m.exitStatus(m.cl); {
	case st != "" && exited:
		msg = fmt.Sprintf("plugin %q exited during the call: it %s", m.spec.Name, st)
	case st != "":
		msg = fmt.Sprintf("plugin %q stopped answering during the call and was stopped (%s)", m.spec.Name, st)
	}
	m.cl, m.raw = nil, nil
	if tail := strings.TrimSpace(m.stderr.String()); tail != "" {
		msg += "; its stderr ended with:\n" + tail
	}
	m.host.opts.Logger.Warn("plugin exited", "name", m.spec.Name, "error", m.host.opts.Secrets.Error(err))
	return &sdk.Error{Kind: sdk.KindProcessExit, Message: msg}
}

func (m *managed) pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cl == nil || m.cl.Exited() {
		return 0
	}
	return pidOf(m.cl)
}

func (m *managed) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cl != nil {
		m.cl.Kill()
		m.cl, m.raw = nil, nil
	}
	m.program.close()
}

func pidOf(cl *plugin.Client) int {
	if rc := cl.ReattachConfig(); rc != nil {
		if rc.Pid != 0 {
			return rc.Pid
		}
	}
	return 0
}

// BaseEnv is the environment every plugin gets: what programs need to run,
// never secrets. A plugin's own variables come from its Spec.
func BaseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ", "SHELL", "HARNESS_LOG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// generation counts the processes started so far; a handle compares it to
// know whether its configuration reached the current process.
func (m *managed) generation() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.starts
}

// DeadlineReached reports whether ctx's deadline is (all but) past. The
// plugin's side of a call has the same deadline and may reset the stream a
// moment before the host's context expires; that failure is the timeout,
// and the host reports it as one before ctx itself says so.
func DeadlineReached(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < 100*time.Millisecond
}
