//go:build !linux

package engine

import (
	"io/fs"
	"os"
	"path/filepath"
)

// dirHandle is a listed directory; its files are opened by path.
type dirHandle struct{ path string }

// openDir lists a directory; os.ReadDir takes the entry types from the
// directory listing where the platform reports them. Package os has its
// own listing buffer; scratch is unused.
func openDir(path string, _ *[]byte) (*dirHandle, []dirEntry, error) {
	list, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, err
	}
	entries := make([]dirEntry, 0, len(list))
	for _, e := range list {
		entries = append(entries, dirEntry{name: e.Name(), kind: modeKind(e.Type())})
	}
	return &dirHandle{path: path}, entries, nil
}

func modeKind(m fs.FileMode) entryKind {
	switch {
	case m.IsRegular():
		return kindFile
	case m.IsDir():
		return kindDir
	}
	return kindOther
}

// readFile reads the whole file name into buf (the walk never queues
// symbolic links, so there is none to refuse here).
func (h *dirHandle) readFile(name string, buf []byte) ([]byte, error) {
	return readNoSymlinks(filepath.Join(h.path, name), buf)
}

// readNoSymlinks reads a regular file of at most MaxFileBytes. Without
// openat, links swapped in between the listing and the open are not
// refused on these platforms.
func readNoSymlinks(path string, buf []byte) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return buf, err
	case !fi.Mode().IsRegular():
		return buf, errNotRegular
	case fi.Size() > MaxFileBytes:
		return buf, &tooLargeError{size: fi.Size()}
	}
	return readPath(path, buf)
}

func (h *dirHandle) hold(int) {}
func (h *dirHandle) release() {}
