package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/sdk"
)

// managed is one plugin's long-lived client. A crash of its process ends
// it; the next use starts a fresh process.
type managed struct {
	spec Spec
	host *Host
	proc *process // its own, or the host's shared one (Spec.Shared)

	mu     sync.Mutex
	raw    any // the client on the process of generation rawGen
	rawGen int

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

// client returns the plugin's gRPC client on its running process,
// starting the process if needed. On a shared process each plugin has its
// own client, which names it in every call.
func (m *managed) client(ctx context.Context) (any, error) {
	rpc, gen, err := m.proc.connect(ctx, m.spec.Name)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.raw != nil && m.rawGen >= gen {
		// Its client on this process, or on a newer one that a concurrent
		// call got first: never put back a client of an older process.
		return m.raw, nil
	}
	raw, err := m.dispense(rpc)
	if err != nil {
		return nil, m.proc.dispenseFailed(gen, m.spec.Name, err)
	}
	m.raw, m.rawGen = raw, gen
	m.host.opts.Logger.Debug("plugin started", "name", m.spec.Name, "kind", m.spec.Kind, "pid", m.proc.pid(), "shared", m.spec.Shared)
	return raw, nil
}

// dispense makes the plugin's client on the connection of its process.
func (m *managed) dispense(rpc plugin.ClientProtocol) (any, error) {
	if !m.spec.Shared {
		return rpc.Dispense(m.spec.Kind)
	}
	g, ok := rpc.(*plugin.GRPCClient)
	if !ok {
		return nil, fmt.Errorf("the shared process does not speak gRPC")
	}
	serves := m.spec.Serves
	if serves == "" {
		serves = m.spec.Name
	}
	m.proc.joined(m.spec.Name)
	switch m.spec.Kind {
	case sdk.PluginTool:
		return sdk.NewSharedToolClient(g.Conn, m.spec.Name, serves), nil
	case sdk.PluginProvider:
		return sdk.NewSharedProviderClient(g.Conn, m.spec.Name, serves), nil
	}
	return nil, fmt.Errorf("a %s plugin cannot share a process", m.spec.Kind)
}

// callError turns a failed RPC into a structured error, without the
// host's secrets (a plugin may put its key in its error or on its stderr).
func (m *managed) callError(ctx context.Context, raw any, err error) error {
	return m.host.opts.Secrets.Error(m.callFailure(ctx, raw, err))
}

// callFailure is callError before redaction. When the plugin's process is
// gone it is a process_exit error with the stderr tail, and the next call
// starts a fresh process.
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
	current, gen := m.raw, m.rawGen
	m.mu.Unlock()
	if current != raw {
		return &sdk.Error{Kind: sdk.KindProcessExit, Message: fmt.Sprintf("plugin %q restarted during the call: %v", m.spec.Name, err)}
	}
	return m.proc.failure(gen, m.spec.Name, err)
}

func (m *managed) pid() int { return m.proc.pid() }

// stop stops the plugin's own process; a shared one is the host's to stop.
func (m *managed) stop() {
	if !m.spec.Shared {
		m.proc.stop()
	}
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
func (m *managed) generation() int { return m.proc.generation() }

// DeadlineReached reports whether ctx's deadline is (all but) past. The
// plugin's side of a call has the same deadline and may reset the stream a
// moment before the host's context expires; that failure is the timeout,
// and the host reports it as one before ctx itself says so.
func DeadlineReached(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < 100*time.Millisecond
}
