package mcp

import (
	"os/exec"
	"syscall"
)

// isolate puts a server in a process group of its own (a Ctrl-C on the
// terminal reaches harness only, and Close can stop the server with every
// process it started) and has the kernel kill it when harness dies.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
