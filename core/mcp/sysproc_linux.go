package mcp

import (
	"os/exec"
	"syscall"
)

// isolate puts a server in a process group of its own (a Ctrl-C on the
// terminal reaches harness only, and Close stops the server with every
// process it started) and has the kernel send it SIGTERM when harness
// dies. SIGTERM rather than SIGKILL: a launcher such as npx passes it on to
// the server it started, which a SIGKILL would leave behind.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
