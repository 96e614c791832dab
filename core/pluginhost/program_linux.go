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

// copyInKernel copies what is left of src to dst with sendfile(2), which
// moves the pages inside the kernel (copy_file_range refuses a memfd
// target on another filesystem, and os.File.ReadFrom then copies through
// user memory, 32 KiB at a time); where the kernel refuses sendfile it
// copies the rest through a buffer.
func copyInKernel(dst, src *os.File) error {
	rc, err := src.SyscallConn()
	if err != nil {
		return err
	}
	for {
		var n int
		var serr error
		if err := rc.Read(func(fd uintptr) bool {
			n, serr = unix.Sendfile(int(dst.Fd()), int(fd), nil, 1<<30)
			return !errors.Is(serr, unix.EAGAIN)
		}); err != nil {
			return err
		}
		switch {
		case errors.Is(serr, unix.EINTR):
			continue
		case errors.Is(serr, unix.EINVAL), errors.Is(serr, unix.ENOSYS):
			return readAll(dst, src)
		case serr != nil:
			return serr
		case n == 0:
			return nil
		}
	}
}
