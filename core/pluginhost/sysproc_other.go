//go:build !linux

package pluginhost

import (
	"os/exec"
	"syscall"
)

// isolate puts a plugin in its own process group. Other systems have no
// parent-death signal; the SDK's watchdog stops the plugin instead.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A start canceled before the handshake kills the plugin's whole group.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// dead reports whether the child pid has exited; other systems learn it
// from go-plugin alone.
func dead(int) bool { return false }
