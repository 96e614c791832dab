//go:build !linux

package bench

import (
	"os"
	"os/exec"
	"testing"
)

// sealedCopy is nil where the kernel has no memfd: core/pluginhost then
// runs the binary by its path, as sealedCommand does.
func sealedCopy(*testing.B, string) *os.File { return nil }

// sealedCommand runs the harness binary from its file.
func sealedCommand(_ *os.File, args ...string) *exec.Cmd {
	return exec.Command(harnessBin, args...)
}
