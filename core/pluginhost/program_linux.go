package pluginhost

import (
	"context"
	"errors"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// command returns a command that runs p with args. A pinned file reaches
// the child as descriptor 3 and runs as /proc/self/fd/3: nothing is looked
// up by path (an interpreter of a #! script reads it there too).
// The process is killed when ctx ends.
func (p program) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "/proc/self/exe", args...)
	cmd.Args[0] = p.name
	if p.file != nil {
		cmd.Path = "/proc/self/fd/3"
		cmd.ExtraFiles = []*os.File{p.file}
	}
	return cmd
}

// sealedCopy returns an anonymous, sealed in-memory file to copy a verified
// plugin into: once sealed, nobody can change what it holds, so the bytes
// that were hashed are the bytes that run. ok is false where the kernel has
// no memfd.
func sealedCopy(name string) (f *os.File, seal func() error, ok bool) {
	flags := unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate(name, flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		// Kernels before 6.3 know no MFD_EXEC; their memfds are executable.
		fd, err = unix.MemfdCreate(name, flags)
	}
	if err != nil {
		return nil, nil, false
	}
	f = os.NewFile(uintptr(fd), "memfd:"+name)
	seal = func() error {
		_, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
		return err
	}
	return f, seal, true
}
