package workspace

import (
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/afero"
)

// memFS is an in-memory workspace. It has no symbolic links, so its
// confinement is lexical: the same rules as RootFS for "..", absolute
// paths and NUL bytes.
type memFS struct {
	base afero.Fs
	dir  string
}

var _ FS = (*memFS)(nil)

// NewMemFS returns an empty in-memory workspace (afero.NewMemMapFs) rooted
// at the absolute path dir, which messages name and absolute paths are
// checked against. It lets tests exercise tool logic without a disk.
func NewMemFS(dir string) FS {
	return &memFS{base: afero.NewMemMapFs(), dir: filepath.Clean(dir)}
}

func (m *memFS) Root() string { return m.dir }
func (m *memFS) Name() string { return "workspace(mem)" }
func (m *memFS) path(name string) (string, error) {
	rel, err := lexical(name, m.dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(m.dir, filepath.FromSlash(rel)), nil
}

func (m *memFS) Resolve(name string) (string, error)  { return lexical(name, m.dir) }
func (m *memFS) RealPath(name string) (string, error) { return lexical(name, m.dir) }

func (m *memFS) Create(name string) (afero.File, error) {
	p, err := m.path(name)
	if err != nil {
		return nil, err
	}
	return m.base.Create(p)
}

func (m *memFS) Open(name string) (afero.File, error) {
	p, err := m.path(name)
	if err != nil {
		return nil, err
	}
	return m.base.Open(p)
}

func (m *memFS) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	p, err := m.path(name)
	if err != nil {
		return nil, err
	}
	return m.base.OpenFile(p, flag, perm)
}

func (m *memFS) Mkdir(name string, perm os.FileMode) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	return m.base.Mkdir(p, perm)
}

func (m *memFS) MkdirAll(name string, perm os.FileMode) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	return m.base.MkdirAll(p, perm)
}

func (m *memFS) Remove(name string) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	return m.base.Remove(p)
}

func (m *memFS) RemoveAll(name string) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	return m.base.RemoveAll(p)
}

func (m *memFS) Rename(oldname, newname string) error {
	from, err := m.path(oldname)
	if err != nil {
		return err
	}
	to, err := m.path(newname)
	if err != nil {
		return err
	}
	return m.base.Rename(from, to)
}

func (m *memFS) Stat(name string) (os.FileInfo, error) {
	p, err := m.path(name)
	if err != nil {
		return nil, err
	}
	return m.base.Stat(p)
}

func (m *memFS) Chmod(name string, mode os.FileMode) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	return m.base.Chmod(p, mode)
}

func (m *memFS) Chown(name string, uid, gid int) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	return m.base.Chown(p, uid, gid)
}

func (m *memFS) Chtimes(name string, atime, mtime time.Time) error {
	p, err := m.path(name)
	if err != nil {
		return err
	}
	return m.base.Chtimes(p, atime, mtime)
}
