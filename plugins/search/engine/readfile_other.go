//go:build !linux

package engine

import (
	"io"
	"os"
)

// readFile reads a whole file into buf. A file that overflows buf is
// stat'ed once to grow buf to its size. Symbolic links are filtered out by
// the walk, which never queues them; follow is implied.
func readFile(path string, buf []byte, _ bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	sized := false
	for {
		if len(buf) == cap(buf) {
			size := int64(0)
			if !sized {
				if info, err := f.Stat(); err == nil {
					size = info.Size()
				}
				sized = true
			}
			buf = grow(buf, size)
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
