package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/harness-agent/harness/plugins/terminal/internal/helper"
	"github.com/harness-agent/harness/sdk"
)

const (
	// killGrace is the time between SIGTERM and SIGKILL when a command is
	// stopped (timeout, cancel) or leaves processes behind when it exits.
	killGrace = 500 * time.Millisecond
	// helperSlack is how much longer than killGrace the plugin waits for a
	// stopped command's helper before it kills the helper and the group.
	helperSlack = helper.KillWait + time.Second
	// startAllowance bounds the start of the helper, before a command's
	// timeout begins to count.
	startAllowance = 10 * time.Second
	// eofWait is how long the plugin keeps reading after the helper has
	// exited: the pipes end as soon as no process holds them any more.
	eofWait = 200 * time.Millisecond
)

// running holds every command in flight, for the shutdown hook.
var running = struct {
	sync.Mutex
	procs  map[*process]struct{}
	closed bool
}{procs: map[*process]struct{}{}}

var subreaperOnce sync.Once

// becomeSubreaper makes the plugin the child subreaper of the commands'
// processes: if a helper dies before it tore its command down, what the
// command left behind is re-parented to the plugin rather than to init,
// and the shutdown hook finds it among the plugin's children.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			sdk.Logger().Warn("terminal: cannot become a child subreaper", "error", err)
		}
	})
}

// process is one command: its helper, the helper's control socket and the
// read ends of the command's stdout and stderr.
type process struct {
	cmd            *exec.Cmd
	ctl            *os.File
	stdout, stderr *os.File
	pidns          bool          // the helper is PID 1 of a namespace: its death ends the command
	started        chan struct{} // the shell runs (closed at the latest with done)
	done           chan struct{} // the helper has exited and was reaped

	startOnce sync.Once
	mu        sync.Mutex
	status    helperStatus
	shutdown  bool // the plugin's shutdown killed the command
}

// helperStatus is what the helper reported on the control socket.
type helperStatus struct {
	pgid    int    // the command's process group, once the shell started (in the helper's PID namespace)
	denied  string // the sandbox could not be set up
	failure string // the helper could not start the shell
	exited  bool   // the shell exited and the helper tore the command down
	code    int
	signal  syscall.Signal
}

// execute runs spec's command to its end, its timeout or ctx's end.
func execute(ctx context.Context, spec runSpec) (outcome, error) {
	outs := newOutputStreams(spec.progress)
	p, err := startProcess(spec)
	if err != nil {
		outs.finish()
		return outcome{}, err
	}
	defer p.release()
	outs.read("stdout", p.stdout)
	outs.read("stderr", p.stderr)

	// The timeout counts from the moment the shell runs: starting the
	// helper is the plugin's overhead, not the command's time. A helper
	// that never gets there still ends, startAllowance later.
	timer := time.NewTimer(spec.timeout + startAllowance)
	defer timer.Stop()
	var (
		stopped  sdk.ErrorKind
		deadline bool
		started  = p.started
	)
wait:
	for {
		select {
		case <-started:
			started = nil
			timer.Reset(spec.timeout)
		case <-p.done:
			break wait
		case <-timer.C:
			stopped = sdk.KindTimeout
			break wait
		case <-ctx.Done():
			stopped = sdk.KindCanceled
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				stopped, deadline = sdk.KindTimeout, true
			}
			break wait
		}
	}
	if stopped != "" {
		select {
		case <-p.done:
			stopped = "" // it ended on its own just in time
		default:
		}
	}
	if stopped != "" {
		p.stop()
	}
	p.backstop()

	// Whatever still holds the pipes escaped the teardown: read what is
	// there, then stop reading rather than wait for it.
	select {
	case <-outs.readersDone():
	case <-time.After(eofWait):
	}
	p.stdout.Close()
	p.stderr.Close()

	out := outcome{output: outs.finish(), stopped: stopped, deadline: deadline}
	st := p.result()
	p.mu.Lock()
	shutdown := p.shutdown
	p.mu.Unlock()
	switch {
	case shutdown:
		return out, sdk.Errorf(sdk.KindCanceled, "terminal: the plugin is shutting down; the command and every process it started were killed")
	case st.denied != "":
		return out, sdk.Errorf(sdk.KindDenied, "terminal: the sandbox could not be set up, so the command did not run: %s", st.denied)
	case st.failure != "":
		return out, sdk.Errorf(sdk.KindInternal, "terminal: %s", st.failure)
	case stopped != "":
	case st.exited:
		out.exitCode = st.code
		if st.signal != 0 {
			out.exitCode, out.signal = 128+int(st.signal), unix.SignalName(st.signal)
		}
	case st.pgid == 0:
		return out, sdk.Errorf(sdk.KindInternal, "terminal: the command helper ended before it started the shell (%v)", p.cmd.ProcessState)
	default:
		return out, sdk.Errorf(sdk.KindInternal, "terminal: the command helper died (%v); the command's processes were killed", p.cmd.ProcessState)
	}
	return out, nil
}

func startProcess(spec runSpec) (*process, error) {
	becomeSubreaper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("terminal: control socket: %w", err)
	}
	ctl := os.NewFile(uintptr(fds[0]), "control")
	helperEnd := os.NewFile(uintptr(fds[1]), "control")
	defer helperEnd.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("terminal: stdout pipe: %w", err)
	}
	defer outW.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		ctl.Close()
		outR.Close()
		return nil, fmt.Errorf("terminal: stderr pipe: %w", err)
	}
	defer errW.Close()

	argv := []string{spec.shell, "-c", spec.command}
	attr := &syscall.SysProcAttr{Setpgid: true}
	pidns := spec.sandbox != nil && spec.sandbox.namespaces
	if pidns {
		attr = sandboxSysProcAttr(spec.sandbox.network)
	}
	cmd := &exec.Cmd{
		// /proc/self/exe is this very binary, even if its file was
		// replaced or removed since the plugin started.
		Path:        "/proc/self/exe",
		Args:        append([]string{os.Args[0]}, helperArgs(killGrace, spec.sandbox, argv)...),
		Dir:         spec.dir,
		Env:         append(spec.env[:len(spec.env):len(spec.env)], helper.Env+"=1"),
		Stdout:      outW,
		Stderr:      errW,
		ExtraFiles:  []*os.File{helperEnd},
		SysProcAttr: attr,
	}
	p := &process{cmd: cmd, ctl: ctl, stdout: outR, stderr: errR, pidns: pidns, started: make(chan struct{}), done: make(chan struct{})}

	running.Lock()
	if running.closed {
		err = errors.New("terminal: the plugin is shutting down")
	} else if err = startHelper(cmd, pidns); err == nil {
		running.procs[p] = struct{}{}
	}
	running.Unlock()
	if err != nil {
		ctl.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("terminal: start the command helper: %w", err)
	}
	go p.watch()
	return p, nil
}

// watch records the helper's reports until it exits, then reaps it.
func (p *process) watch() {
	defer close(p.done)
	r := bufio.NewReader(p.ctl)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			p.record(strings.TrimSuffix(line, "\n"))
		}
		if err != nil {
			break
		}
	}
	_ = p.cmd.Wait()
	p.markStarted()
}

func (p *process) markStarted() {
	p.startOnce.Do(func() { close(p.started) })
}

func (p *process) record(line string) {
	verb, rest, _ := strings.Cut(line, " ")
	p.mu.Lock()
	defer p.mu.Unlock()
	switch verb {
	case "started":
		p.status.pgid, _ = strconv.Atoi(rest)
		p.markStarted()
	case "denied":
		p.status.denied = rest
	case "error":
		p.status.failure = rest
	case "exit":
		code, sig, _ := strings.Cut(rest, " ")
		p.status.code, _ = strconv.Atoi(code)
		n, _ := strconv.Atoi(sig)
		p.status.signal = syscall.Signal(n)
		p.status.exited = true
	}
}

func (p *process) result() helperStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// stop asks the helper to end the command (SIGTERM, then SIGKILL after
// killGrace) and waits for it; a helper that does not finish is killed
// together with the command's process group.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(killGrace + helperSlack):
		p.kill()
		<-p.done
	}
}

// kill ends the helper and the command's process group at once. A
// helper in a PID namespace takes every process there along when it dies
// (and its pgid is a number of that namespace, not the plugin's).
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	if st := p.result(); !p.pidns && st.pgid > 0 && !st.exited {
		_ = unix.Kill(-st.pgid, syscall.SIGKILL)
	}
}

// backstop runs once the helper is gone. A helper that did not report the
// end of its teardown (it was killed, or crashed) may have left the
// command's process group behind: kill it, and reap the members that were
// re-parented to the plugin.
func (p *process) backstop() {
	st := p.result()
	if st.exited || st.pgid == 0 || p.pidns {
		return
	}
	_ = unix.Kill(-st.pgid, syscall.SIGKILL)
	deadline := time.Now().Add(helper.KillWait)
	for time.Now().Before(deadline) {
		pid, err := unix.Wait4(-st.pgid, nil, unix.WNOHANG, nil)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return // ECHILD: none of the group is the plugin's child any more
		}
		if pid == 0 {
			time.Sleep(helper.ScanEvery)
		}
	}
}

func (p *process) release() {
	running.Lock()
	delete(running.procs, p)
	running.Unlock()
	p.ctl.Close()
}

// shutdown runs when the plugin stops or its host dies: it kills every
// command in flight and then every child the plugin still has, until none
// is left, so that nothing a command started outlives the plugin.
func shutdown() {
	running.Lock()
	running.closed = true
	procs := make([]*process, 0, len(running.procs))
	for p := range running.procs {
		procs = append(procs, p)
	}
	running.Unlock()
	for _, p := range procs {
		p.mu.Lock()
		p.shutdown = true
		p.mu.Unlock()
		p.kill()
	}
	killChildren(helper.KillWait)
	removePrivateTemp()
}

// killChildren sends SIGKILL to the plugin's children and reaps them, over
// and over, until the plugin has no child left: the children of a killed
// process become the plugin's own (it is their subreaper) and are caught
// in a later round. A child that /proc shows as a zombie may still be
// dying (a multi-threaded process whose main thread exited first, its
// children not yet handed on), so only the kernel's "no child" ends it.
func killChildren(limit time.Duration) {
	self := os.Getpid()
	deadline := time.Now().Add(limit)
	for {
		procs, _ := helper.ListProcs()
		for _, pr := range procs {
			if pr.PPID != self {
				continue
			}
			if pr.Zombie() {
				_, _ = unix.Wait4(pr.PID, nil, unix.WNOHANG, nil)
				continue
			}
			_ = unix.Kill(pr.PID, syscall.SIGKILL)
		}
		if helper.NoChildren() || time.Now().After(deadline) {
			return
		}
		time.Sleep(helper.ScanEvery)
	}
}

// helperArgs are the arguments the plugin starts the helper with.
func helperArgs(grace time.Duration, sb *sandboxSpec, argv []string) []string {
	args := []string{helper.Arg, "-grace", grace.String()}
	if sb != nil {
		args = append(args, sb.args()...)
	}
	return append(append(args, "--"), argv...)
}
