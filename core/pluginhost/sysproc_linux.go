package pluginhost

import (
	"os/exec"
	"syscall"
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
