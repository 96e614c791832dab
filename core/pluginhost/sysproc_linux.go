package pluginhost

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// isolate puts a plugin in its own process group (a Ctrl-C on the terminal
// reaches the host only, which then stops plugins in order) and asks the
// kernel to send it SIGTERM when the host dies; the SDK turns that signal
// into a clean shutdown that also kills the processes the plugin started.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	// A start canceled before the handshake kills the plugin's whole group.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// dead reports whether the child pid has exited, without reaping it
// (go-plugin's Wait does): a process killed a moment ago is dead before
// go-plugin has noticed, and a call sent to it would fail.
func dead(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	// ECHILD: reaped already, so go-plugin is about to say it exited.
	return err == unix.ECHILD || (err == nil && info.Signo == int32(unix.SIGCHLD))
}
