package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/afero"
)

// FS is a workspace: an afero.Fs whose every name is a workspace path
// (relative to the root, or absolute and inside it) confined to the root.
// A name that leads outside fails with an *sdk.Error of kind path_escape.
type FS interface {
	afero.Fs
	// Root is the workspace directory, absolute, as configured; messages name it.
	Root() string
	// Resolve checks that name stays inside the workspace, following
	// symbolic links, and returns it cleaned, slash-separated and relative
	// to the root ("." for the root itself), symbolic links kept as named.
	Resolve(name string) (string, error)
	// RealPath is Resolve with every symbolic link replaced by its target.
	RealPath(name string) (string, error)
}

// RootFS is a workspace on disk, backed by os.Root.
type RootFS struct {
	root    *os.Root
	dir     string // absolute and clean, as configured
	realDir string // dir with its symbolic links resolved
}

var (
	_ FS       = (*RootFS)(nil)
	_ afero.Fs = (*RootFS)(nil)
)

// Open opens the workspace rooted at the directory dir.
func Open(dir string) (*RootFS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	realDir, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	}
	return &RootFS{root: root, dir: abs, realDir: realDir}, nil
}

// Close releases the workspace's directory handle.
func (r *RootFS) Close() error { return r.root.Close() }

// Root implements FS.
func (r *RootFS) Root() string { return r.dir }

// Name implements afero.Fs.
func (r *RootFS) Name() string { return "workspace" }

// Resolve implements FS.
func (r *RootFS) Resolve(name string) (string, error) {
	rel, _, err := r.resolve(name, true)
	return rel, err
}

// RealPath implements FS.
func (r *RootFS) RealPath(name string) (string, error) {
	_, real, err := r.resolve(name, true)
	return real, err
}

// target is the name handed to os.Root for an operation on name.
// followLast is false for operations on a directory entry itself (remove,
// rename, mkdir), which must not follow a final symbolic link.
func (r *RootFS) target(name string, followLast bool) (string, error) {
	_, real, err := r.resolve(name, followLast)
	return real, err
}

// Create implements afero.Fs.
func (r *RootFS) Create(name string) (afero.File, error) {
	return r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open implements afero.Fs.
func (r *RootFS) Open(name string) (afero.File, error) {
	return r.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile implements afero.Fs.
func (r *RootFS) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	t, err := r.target(name, true)
	if err != nil {
		return nil, err
	}
	f, err := r.root.OpenFile(t, flag, perm)
	if err != nil {
		return nil, r.opError(name, err)
	}
	return f, nil
}

// Mkdir implements afero.Fs.
func (r *RootFS) Mkdir(name string, perm os.FileMode) error {
	t, err := r.target(name, false)
	if err != nil {
		return err
	}
	return r.opError(name, r.root.Mkdir(t, perm))
}

// MkdirAll implements afero.Fs.
func (r *RootFS) MkdirAll(name string, perm os.FileMode) error {
	t, err := r.target(name, true)
	if err != nil {
		return err
	}
	err = r.root.MkdirAll(t, perm)
	if errors.Is(err, fs.ErrExist) {
		// A file is in the way; os.MkdirAll says so with ENOTDIR, os.Root with EEXIST.
		return &fs.PathError{Op: "mkdir", Path: name, Err: errNotDir}
	}
	return r.opError(name, err)
}

// Remove implements afero.Fs.
func (r *RootFS) Remove(name string) error {
	t, err := r.target(name, false)
	if err != nil {
		return err
	}
	return r.opError(name, r.root.Remove(t))
}

// RemoveAll implements afero.Fs.
func (r *RootFS) RemoveAll(name string) error {
	t, err := r.target(name, false)
	if err != nil {
		return err
	}
	return r.opError(name, r.root.RemoveAll(t))
}

// Rename implements afero.Fs.
func (r *RootFS) Rename(oldname, newname string) error {
	from, err := r.target(oldname, false)
	if err != nil {
		return err
	}
	to, err := r.target(newname, false)
	if err != nil {
		return err
	}
	err = r.root.Rename(from, to)
	if isEscape(err) {
		return r.opError(newname, err)
	}
	return err
}

// Stat implements afero.Fs.
func (r *RootFS) Stat(name string) (os.FileInfo, error) {
	t, err := r.target(name, true)
	if err != nil {
		return nil, err
	}
	fi, err := r.root.Stat(t)
	if err != nil {
		return nil, r.opError(name, err)
	}
	return fi, nil
}

// Chmod implements afero.Fs.
func (r *RootFS) Chmod(name string, mode os.FileMode) error {
	t, err := r.target(name, true)
	if err != nil {
		return err
	}
	return r.opError(name, r.root.Chmod(t, mode))
}

// Chown implements afero.Fs.
func (r *RootFS) Chown(name string, uid, gid int) error {
	t, err := r.target(name, true)
	if err != nil {
		return err
	}
	return r.opError(name, r.root.Chown(t, uid, gid))
}

// Chtimes implements afero.Fs.
func (r *RootFS) Chtimes(name string, atime, mtime time.Time) error {
	t, err := r.target(name, true)
	if err != nil {
		return err
	}
	return r.opError(name, r.root.Chtimes(t, atime, mtime))
}

// opError turns os.Root's refusal of an escaping path (a file changed into
// a symbolic link after the resolver looked at it) into path_escape.
func (r *RootFS) opError(name string, err error) error {
	if isEscape(err) {
		return escapeError(name, r.dir, "")
	}
	return err
}

// isEscape reports whether err is os.Root's refusal of a path that leaves
// the root. os does not export that error; its text is fixed.
func isEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// isMissing reports whether err means a path component does not exist
// (or is a file where a directory was expected).
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir)
}
