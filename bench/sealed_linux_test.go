package bench

import (
	"io"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// sealedCopy copies the file at path into a sealed in-memory file, as
// core/pluginhost pins a binary before it runs it.
func sealedCopy(b *testing.B, path string) *os.File {
	b.Helper()
	fd, err := unix.MemfdCreate("bench-copy", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		b.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "memfd:bench-copy")
	b.Cleanup(func() { f.Close() })
	src, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	if _, err := io.Copy(f, src); err != nil {
		b.Fatal(err)
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		b.Fatal(err)
	}
	return f
}

// sealedCommand runs the copy with args, as core/pluginhost runs a pinned
// program: handed over as descriptor 3 and started as /proc/self/fd/3.
func sealedCommand(copied *os.File, args ...string) *exec.Cmd {
	cmd := exec.Command("/proc/self/fd/3", args...)
	cmd.ExtraFiles = []*os.File{copied}
	return cmd
}
