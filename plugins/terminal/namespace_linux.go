package terminal

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/harness-agent/harness/internal/procguard"
)

// How the plugin starts a namespaced helper. What the helper does in the
// namespaces is internal/helper's (namespace_linux.go there).

// sandboxCloneFlags are the namespaces of a sandboxed command.
func sandboxCloneFlags(network bool) uintptr {
	flags := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC)
	if !network {
		flags |= unix.CLONE_NEWNET
	}
	return flags
}

// sandboxSysProcAttr is how the plugin starts a namespaced helper: the
// plugin's uid and gid map to themselves inside (no new privilege on any
// file), and the helper keeps, through its exec, the capabilities it needs
// to set the sandbox up in its own namespaces (it drops them all before the
// shell starts).
func sandboxSysProcAttr(network bool) *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Setpgid:                    true,
		Cloneflags:                 sandboxCloneFlags(network),
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP, unix.CAP_NET_ADMIN},
	}
}

// startHelper starts the command helper, in new namespaces if namespaced.
// The plugin is non-dumpable (sdk.Serve), and the kernel lets a plain
// user's process write a child's uid_map only while the child, which
// inherits the flag until it runs its program, is dumpable.
func startHelper(cmd *exec.Cmd, namespaced bool) error {
	if !namespaced {
		return cmd.Start()
	}
	return procguard.WhileDumpable(cmd.Start)
}
