package engine

import (
	"errors"
	"syscall"
)

// readFile reads a whole file into buf with plain system calls: open, read
// until EOF, close. os.ReadFile would add an fstat and an epoll registration
// attempt per file, which shows on trees of thousands of small files; here
// only a file that overflows buf pays for an fstat, to grow buf once to its
// size. Unless follow is set the file is opened with O_NOFOLLOW, so a
// symbolic link swapped in after the directory was listed is refused rather
// than followed; O_NONBLOCK keeps a FIFO swapped in the same way from
// blocking the open.
func readFile(path string, buf []byte, follow bool) ([]byte, error) {
	flags := syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	fd, err := openRetry(path, flags)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
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

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, flags, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
