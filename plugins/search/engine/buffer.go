package engine

import (
	"io"
	"os"
	"sync"
)

// Buffer sizes: a worker takes a buffer of at least initialBuffer from the
// pool and keeps it across files and searches unless a file made it larger
// than maxKeptBuffer.
const (
	initialBuffer = 256 << 10
	maxKeptBuffer = 16 << 20
)

// buffers recycles file buffers between searches: a plugin process serves
// many searches, and a buffer grown for a large file is worth keeping.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, initialBuffer); return &b }}

func getBuffer() []byte { return (*buffers.Get().(*[]byte))[:0] }

func putBuffer(b []byte) {
	if cap(b) <= maxKeptBuffer {
		b = b[:0]
		buffers.Put(&b)
	}
}

// grow returns buf with room for more: for size, the file's length as far
// as known, plus one byte so that the read that follows can see the end
// of the file; at least twice the old capacity.
func grow(buf []byte, size int64) []byte {
	want := max(2*cap(buf), int(size)+1)
	bigger := make([]byte, len(buf), want)
	copy(bigger, buf)
	return bigger
}

// readPath reads the whole file at path into buf. The walk and a file
// named by Query.Path read through readNoSymlinks, which checks the file
// first; this is its last step on the platforms without openat.
func readPath(path string, buf []byte) ([]byte, error) {
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
