package helper

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The supervisor ("helper") is the plugin's child that owns one command:
//
//	plugin ── helper (own process group) ── shell (process group G) ── …
//
// It talks to the plugin over a socket on fd 3 (the control socket):
//
//	helper → plugin   "started G" | "denied MSG" | "error MSG" | "exit CODE SIGNAL"
//	plugin → helper   nothing; end of file means the plugin died
//
// and tears the command down when the shell exits, when the plugin sends
// SIGTERM (timeout, cancel), or when the plugin dies. The helper is a child
// subreaper, so everything the command leaves behind — background jobs,
// daemons that called setsid — is re-parented to it and cannot hide.

// controlFD is where the plugin puts the control socket (ExtraFiles[0]).
const controlFD = 3

// KillWait bounds how long the helper keeps sending SIGKILL to a command's
// processes (one in uninterruptible sleep cannot die until it wakes); the
// plugin's backstop waits as long.
const KillWait = 2 * time.Second

// ScanEvery paces the helper's (and the plugin's) look at /proc while it
// waits for processes to go.
const ScanEvery = 10 * time.Millisecond

type helperOptions struct {
	grace      time.Duration
	writable   []string // where Landlock lets the command write; nil: no Landlock
	namespaces bool     // the helper runs in namespaces of its own (sandboxCloneFlags)
	seccomp    bool     // apply the seccomp filter
	network    bool     // the network namespace is the plugin's
	workspace  string   // with namespaces: the writable tree
	tmp        string   // with namespaces: the private temp dir, mounted on /tmp
	protect    []string // with namespaces: paths made read-only
	probe      bool     // set the sandbox up, report "ready" and exit
	argv       []string
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func parseHelperArgs(args []string) (helperOptions, error) {
	var opts helperOptions
	fs := flag.NewFlagSet(Arg, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.DurationVar(&opts.grace, "grace", 500*time.Millisecond, "time between SIGTERM and SIGKILL")
	fs.Var((*stringList)(&opts.writable), "write", "writable directory or file (repeatable); confines the command with Landlock")
	fs.BoolVar(&opts.namespaces, "namespaces", false, "set up the namespaced sandbox")
	fs.BoolVar(&opts.seccomp, "seccomp", false, "apply the seccomp filter")
	fs.BoolVar(&opts.network, "network", false, "the command keeps the network")
	fs.StringVar(&opts.workspace, "workspace", "", "the writable workspace")
	fs.StringVar(&opts.tmp, "tmp", "", "the private temp dir")
	fs.Var((*stringList)(&opts.protect), "protect", "read-only path (repeatable)")
	fs.BoolVar(&opts.probe, "probe", false, "only set the sandbox up")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	opts.argv = fs.Args()
	switch {
	case opts.namespaces && (opts.workspace == "" || opts.tmp == ""):
		return opts, errors.New("-namespaces needs -workspace and -tmp")
	case len(opts.argv) == 0 && !opts.probe:
		return opts, errors.New("no command")
	case len(opts.argv) > 0 && !path.IsAbs(opts.argv[0]):
		return opts, fmt.Errorf("the command %q is not an absolute path", opts.argv[0])
	case opts.namespaces && !path.IsAbs(opts.workspace):
		return opts, fmt.Errorf("the workspace %q is not an absolute path", opts.workspace)
	}
	return opts, nil
}

// run is the helper; it returns its exit code.
func run(args []string) int {
	if _, err := unix.FcntlInt(controlFD, unix.F_GETFD, 0); err != nil {
		fmt.Fprintf(os.Stderr, "%s is for the terminal plugin's internal use\n", Arg)
		return 2
	}
	ctl := os.NewFile(controlFD, "control")
	report := func(format string, a ...any) {
		msg := strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " ")
		_, _ = io.WriteString(ctl, msg+"\n")
	}
	// The shell inherits stdin, stdout and stderr only: not the control
	// socket, which would keep the plugin from seeing the helper exit,
	// nor a descriptor that the plugin, or the process that started the
	// harness, got without close-on-exec (a sandboxed command could write
	// through it to what the sandbox forbids).
	if err := closeOnExecFrom(controlFD); err != nil {
		report("error mark descriptors close-on-exec: %v", err)
		return 1
	}

	opts, err := parseHelperArgs(args)
	if err != nil {
		report("error helper arguments: %v", err)
		return 2
	}

	// Landlock, no_new_privs and the shell's parent-death signal all
	// belong to the thread that forks the shell: keep this goroutine on
	// one thread until the helper exits.
	runtime.LockOSThread()

	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		report("error become a subreaper: %v", err)
		return 1
	}
	// Caught, not ignored: caught signals reset to default in the shell.
	stop := make(chan os.Signal, 4)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	if err := confine(opts); err != nil {
		report("denied %v", err)
		return 126
	}
	if opts.probe {
		report("ready")
		return 0
	}

	os.Unsetenv(Env)
	// os.StartProcess, not os/exec, which would cost every command the
	// initialization of path/filepath (see the package comment): the
	// plugin always sends the shell's absolute path.
	attr := &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// A session of its own: the command has no controlling terminal,
		// so it can neither write to the person's terminal through
		// /dev/tty nor push input into it (TIOCSTI). Its process group is
		// the shell's pid, as with Setpgid.
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	if opts.namespaces {
		// The workspace as mounted in the sandbox, not the directory
		// the helper started in (now beneath a read-only mount); PWD
		// says so, as os/exec sets it.
		attr.Dir = opts.workspace
		attr.Env = withPWD(attr.Env, opts.workspace)
	}
	proc, err := os.StartProcess(opts.argv[0], opts.argv, attr)
	if err != nil {
		report("error start %s: %v", opts.argv[0], err)
		return 127
	}
	report("started %d", proc.Pid)

	var state *os.ProcessState
	exited := make(chan struct{})
	go func() {
		state, _ = proc.Wait()
		close(exited)
	}()
	lifeline := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, ctl)
		close(lifeline)
	}()

	end := teardown
	if opts.namespaces {
		end = teardownNamespace
	}
	select {
	case <-exited:
		end(proc.Pid, exited, lifeline, opts.grace)
	case <-stop:
		end(proc.Pid, exited, lifeline, opts.grace)
	case <-lifeline:
		end(proc.Pid, exited, lifeline, 0)
	}
	select {
	case <-exited:
	case <-time.After(KillWait):
		// A shell stuck in uninterruptible sleep: report what was sent.
		report("exit -1 %d", int(syscall.SIGKILL))
		return 128 + int(syscall.SIGKILL)
	}

	var ws syscall.WaitStatus
	if state != nil {
		ws, _ = state.Sys().(syscall.WaitStatus)
	}
	if ws.Signaled() {
		report("exit -1 %d", int(ws.Signal()))
		return 128 + int(ws.Signal())
	}
	report("exit %d 0", ws.ExitStatus())
	return ws.ExitStatus()
}

// teardown ends every process of the command: the members of its process
// group and whatever was re-parented to the helper. They get SIGTERM and,
// after grace (at once when grace is 0 or the plugin dies meanwhile),
// SIGKILL, repeated for processes that show up later (children of killed
// processes are re-parented to the helper), until none is left.
func teardown(pgid int, exited, lifeline <-chan struct{}, grace time.Duration) {
	self := os.Getpid()
	start := time.Now()
	sig := syscall.SIGTERM
	if grace <= 0 {
		sig = syscall.SIGKILL
	}
	termed := map[int]bool{}
	for round := 0; ; round++ {
		if isClosed(exited) && nothingLeft(pgid) {
			return
		}
		if sig == syscall.SIGTERM && (time.Since(start) >= grace || isClosed(lifeline)) {
			sig = syscall.SIGKILL
		}
		if round == 0 || sig == syscall.SIGKILL {
			_ = unix.Kill(-pgid, sig)
		}
		// Scanning /proc is the slow part (milliseconds): only here, when
		// something is left, does the helper look for the stragglers.
		procs, _ := ListProcs()
		for _, p := range procs {
			ours := p.PPID == self
			if p.PID == self || (p.PGID != pgid && !ours) {
				continue
			}
			if p.Zombie() {
				// The shell is reaped by its Wait; the rest by us.
				if ours && p.PID != pgid {
					_, _ = unix.Wait4(p.PID, nil, unix.WNOHANG, nil)
				}
				continue
			}
			if sig == syscall.SIGKILL || !termed[p.PID] {
				_ = unix.Kill(p.PID, sig)
				termed[p.PID] = true
			}
		}
		if sig == syscall.SIGKILL && time.Since(start) > grace+KillWait {
			return
		}
		time.Sleep(ScanEvery)
	}
}

// teardownNamespace is teardown for a helper that is PID 1 of its own PID
// namespace: every other process there is the command's, kill(-1) reaches
// them all, and every orphan is the helper's child. (Should the helper
// itself die, the kernel kills the whole namespace.)
func teardownNamespace(_ int, exited, lifeline <-chan struct{}, grace time.Duration) {
	start := time.Now()
	sig := syscall.SIGTERM
	if grace <= 0 {
		sig = syscall.SIGKILL
	}
	for round := 0; ; round++ {
		if isClosed(exited) {
			// The shell was reaped by its Wait: the rest are ours.
			for {
				pid, err := unix.Wait4(-1, nil, unix.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			if NoChildren() {
				return
			}
		}
		if sig == syscall.SIGTERM && (time.Since(start) >= grace || isClosed(lifeline)) {
			sig = syscall.SIGKILL
		}
		if round == 0 || sig == syscall.SIGKILL {
			_ = unix.Kill(-1, sig)
		}
		if sig == syscall.SIGKILL && time.Since(start) > grace+KillWait {
			return
		}
		time.Sleep(ScanEvery)
	}
}

// confine applies the sandbox opts ask for to the calling thread, which
// forks the shell: namespaces, Landlock, seccomp, then no capability left.
func confine(opts helperOptions) error {
	if opts.namespaces {
		if err := enterNamespaces(opts); err != nil {
			return err
		}
	}
	if opts.writable != nil {
		if err := restrictWrites(opts.writable); err != nil {
			return err
		}
	}
	if opts.seccomp {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("set no_new_privs: %w", err)
		}
		if err := installSeccomp(); err != nil {
			return err
		}
	}
	if opts.namespaces {
		return dropCapabilities()
	}
	return nil
}

// withPWD is env with PWD=dir (dir absolute), in place of any PWD there.
func withPWD(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PWD=") {
			out = append(out, kv)
		}
	}
	return append(out, "PWD="+path.Clean(dir))
}

// nothingLeft says whether the command's process group is empty and the
// helper has no children left (the shell has been reaped by then): every
// process the command started is either in the group or, once its parent
// died, a child of the helper, its subreaper.
func nothingLeft(pgid int) bool {
	if err := unix.Kill(-pgid, 0); !errors.Is(err, unix.ESRCH) {
		return false
	}
	return NoChildren()
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// NoChildren says whether the process has no child at all, live or
// waiting to be reaped.
func NoChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return errors.Is(err, unix.ECHILD)
}

// closeOnExecFrom marks every descriptor from first on close-on-exec.
func closeOnExecFrom(first int) error {
	err := unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	return closeOnExecByProc(first) // before Linux 5.11
}

// closeOnExecByProc is closeOnExecFrom, one descriptor of /proc/self/fd at
// a time.
func closeOnExecByProc(first int) error {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err == nil && fd >= first {
			unix.CloseOnExec(fd) // the directory's own is closed: EBADF
		}
	}
	return nil
}
