//go:build !unix

package pluginhost

import (
	"fmt"
	"os"
)

// describeExit says how a process ended: "exited with status 3".
func describeExit(st *os.ProcessState) string {
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}
