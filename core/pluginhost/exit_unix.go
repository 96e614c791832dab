//go:build unix

package pluginhost

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// describeExit says how a process ended: "exited with status 3", "killed
// by SIGKILL".
func describeExit(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = ws.Signal().String()
		}
		return "was killed by " + name
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}
