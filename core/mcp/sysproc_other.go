//go:build !linux

package mcp

import (
	"os/exec"
	"syscall"
)

// isolate puts a server in a process group of its own. Other systems have
// no parent-death signal: a server outlives a harness that is killed
// outright until it notices that its stdin closed.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
