package terminal

import (
	"os"

	"github.com/harness-agent/harness/plugins/terminal/internal/helper"
)

// devWritable are the device files and directories under /dev that
// programs write to as a matter of course. Not all of /dev: a sandboxed
// command must not write to a disk device.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// ownDevWritable are the devices that are the sandbox's own in its mount
// namespace (its devpts, its /dev/shm; /dev/tty, which a command without a
// controlling terminal cannot open). Without the namespaces they are the
// host's — the person's terminal, other programs' shared memory — and stay
// read-only.
var ownDevWritable = []string{"/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// sandboxWritable lists where a sandboxed command may write: the
// workspace, its temp dir and the usual devices (those that exist here).
func sandboxWritable(workspace, tmp string, namespaces bool) []string {
	paths := []string{workspace, tmp}
	devs := devWritable
	if namespaces {
		devs = append(devs[:len(devs):len(devs)], ownDevWritable...)
	}
	for _, p := range devs {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// kernelLandlockABI is the kernel's Landlock ABI; tests replace it to play
// an older kernel.
var kernelLandlockABI = helper.LandlockABI

// sandboxAvailable says why workspace-write cannot be enforced, or nil.
func sandboxAvailable() error { return helper.LandlockUsable(kernelLandlockABI()) }
