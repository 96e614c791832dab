//go:build !linux

package pluginhost

import (
	"context"
	"os"
	"os/exec"
)

// command runs p by its path, the best this platform offers; the file was
// verified when it was pinned, so a change in between is a race this
// platform does not close.
func (p program) command(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, p.name, args...)
}

// sealedCopy is not available: pinVerified keeps the opened file instead.
func sealedCopy(string) (*os.File, func() error, bool) { return nil, nil, false }
