package engine

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory: its files are opened relative to it with
// openat(2), which spares the kernel the walk along the full path on every
// open. The workers that search its files share it; the last one closes it.
type dirHandle struct {
	fd   int
	refs atomic.Int32
}

// openDir opens and lists a directory, refusing a symbolic link at any
// component of path (the walk passes the real path of the root and of
// each folder below it: a folder swapped for a link after it was listed is
// refused, not followed out), using scratch (which it may grow)
// for the listing. The handle starts with one reference, the caller's.
// Types come from getdents (no stat per entry, except on file systems that
// do not report them).
func openDir(path string, scratch *[]byte) (*dirHandle, []dirEntry, error) {
	fd, err := openNoSymlinks(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW)
	if err != nil {
		return nil, nil, err
	}
	h := &dirHandle{fd: fd}
	h.refs.Store(1)
	entries, err := h.list(scratch)
	if err != nil {
		h.release()
		return nil, nil, err
	}
	return h, entries, nil
}

// list reads the entries with getdents64, skipping "." and "..".
func (h *dirHandle) list(scratch *[]byte) ([]dirEntry, error) {
	if len(*scratch) < direntBuffer {
		*scratch = make([]byte, direntBuffer)
	}
	buf := *scratch
	var entries []dirEntry
	for {
		n, err := retryEINTR(func() (int, error) { return syscall.ReadDirent(h.fd, buf) })
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return entries, nil
		}
		for rec := buf[:n]; len(rec) > 0; {
			e, size, ok := parseDirent(rec)
			if !ok {
				return nil, syscall.EIO
			}
			rec = rec[size:]
			if e.name == "" || e.name == "." || e.name == ".." {
				continue
			}
			if e.kind == kindUnknown {
				e.kind = h.statKind(e.name)
			}
			entries = append(entries, e)
		}
	}
}

// direntBuffer is the size of the getdents buffer, as in package os.
const direntBuffer = 8 << 10

// parseDirent decodes one linux_dirent64 record: d_ino (8 bytes), d_off
// (8), d_reclen (2), d_type (1), then the NUL-terminated name.
func parseDirent(rec []byte) (e dirEntry, size int, ok bool) {
	const nameOffset = 19
	if len(rec) < nameOffset {
		return dirEntry{}, 0, false
	}
	size = int(binary.NativeEndian.Uint16(rec[16:18]))
	if size < nameOffset || size > len(rec) {
		return dirEntry{}, 0, false
	}
	if binary.NativeEndian.Uint64(rec[0:8]) == 0 {
		return dirEntry{}, size, true // a deleted entry
	}
	name := rec[nameOffset:size]
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	return dirEntry{name: string(name), kind: direntKind(rec[18])}, size, true
}

func direntKind(t byte) entryKind {
	switch t {
	case syscall.DT_REG:
		return kindFile
	case syscall.DT_DIR:
		return kindDir
	case syscall.DT_UNKNOWN:
		return kindUnknown
	}
	return kindOther // symbolic links, devices, sockets, FIFOs
}

// statKind asks for the type of an entry the file system did not report.
func (h *dirHandle) statKind(name string) entryKind {
	var st unix.Stat_t
	if err := unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return kindOther
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return kindFile
	case unix.S_IFDIR:
		return kindDir
	}
	return kindOther
}

// readFile reads the whole file name into buf (see readFD). It is opened
// with O_NOFOLLOW, so a symbolic link swapped in after the listing is
// refused rather than followed, and O_NONBLOCK, so that a FIFO swapped in
// the same way cannot block the open; what is opened must be a regular
// file of at most MaxFileBytes.
func (h *dirHandle) readFile(name string, buf []byte) ([]byte, error) {
	fd, err := retryEINTR(func() (int, error) {
		return syscall.Openat(h.fd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	})
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	return readRegular(fd, buf)
}

// readNoSymlinks reads the file at path, refusing a symbolic link at any
// component, a file that is not regular, and one over MaxFileBytes.
func readNoSymlinks(path string, buf []byte) ([]byte, error) {
	fd, err := openNoSymlinks(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	return readRegular(fd, buf)
}

// readRegular checks on the open fd that it is a regular file within
// MaxFileBytes, then reads it.
func readRegular(fd int, buf []byte) ([]byte, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, errNotRegular
	}
	if st.Size > MaxFileBytes {
		return buf, &tooLargeError{size: st.Size}
	}
	return readFD(fd, buf)
}

// openNoSymlinks opens path with flags, refusing a symbolic link at any of
// its components: with openat2(RESOLVE_NO_SYMLINKS) where the kernel has
// it (Linux 5.6+), else one component at a time with O_NOFOLLOW.
func openNoSymlinks(path string, flags int) (int, error) {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	})
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		return fd, err
	}
	return openByComponents(path, flags)
}

func openByComponents(path string, flags int) (int, error) {
	if !strings.HasPrefix(path, "/") {
		return -1, syscall.EINVAL
	}
	dir, err := syscall.Open("/", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	for i, part := range parts {
		f := syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC | syscall.O_NOFOLLOW
		if i == len(parts)-1 {
			f = flags | syscall.O_NOFOLLOW
		}
		next, err := retryEINTR(func() (int, error) { return syscall.Openat(dir, part, f, 0) })
		syscall.Close(dir)
		if err != nil {
			return -1, err
		}
		dir = next
	}
	return dir, nil
}

// readFD reads fd to its end into buf with bare read(2) calls: a file that
// overflows buf is stat'ed once to grow buf to its size.
func readFD(fd int, buf []byte) ([]byte, error) {
	sized := false
	for {
		if len(buf) == cap(buf) {
			size := int64(0)
			if !sized {
				var st syscall.Stat_t
				if syscall.Fstat(fd, &st) == nil {
					size = st.Size
				}
				sized = true
			}
			buf = grow(buf, size)
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return buf, err
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// hold adds n references, one per job that will search files of the
// directory.
func (h *dirHandle) hold(n int) { h.refs.Add(int32(n)) }

// release drops a reference; the last one closes the directory.
func (h *dirHandle) release() {
	if h.refs.Add(-1) == 0 {
		syscall.Close(h.fd)
	}
}

func retryEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}
