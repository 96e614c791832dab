package workspace

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/afero"
)

// keptModeBits are the mode bits an overwrite carries over.
const keptModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// WriteFile replaces the contents of name with data atomically: it writes
// a temporary file in the same directory, syncs it, renames it over name
// and syncs the directory, so readers and a crash see the old or the new
// contents, never a mix. Missing parent directories are created (0755).
// An existing file keeps its mode; a new one gets perm. A symbolic link is
// followed: its target is replaced and the link stays.
//
// Replacing means a new inode: hard links to the old file keep the old
// contents, and the file's owner becomes the plugin's user.
func WriteFile(fsys FS, name string, data []byte, perm fs.FileMode) error {
	real, err := fsys.RealPath(name)
	if err != nil {
		return err
	}
	if real == "." {
		return &fs.PathError{Op: "write", Path: name, Err: syscall.EISDIR}
	}
	dir := path.Dir(real)
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := perm
	switch fi, err := fsys.Stat(real); {
	case err == nil && fi.IsDir():
		return &fs.PathError{Op: "write", Path: name, Err: syscall.EISDIR}
	case err == nil:
		mode = fi.Mode() & keptModeBits
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}

	tmp, f, err := createTemp(fsys, dir, path.Base(real))
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = fsys.Remove(tmp) // best effort: the write already failed
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := fsys.Chmod(tmp, mode); err != nil {
		return err
	}
	if err := fsys.Rename(tmp, real); err != nil {
		return err
	}
	renamed = true
	return syncDir(fsys, dir)
}

// createTemp creates a new, empty, private file next to the target. Its
// name starts with a dot and ends in .tmp so that a leftover is easy to
// recognise.
func createTemp(fsys FS, dir, base string) (string, afero.File, error) {
	const maxBase = 64
	if len(base) > maxBase {
		cut := maxBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	for {
		name := path.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return name, f, nil
	}
}

// syncDir makes a rename in dir durable.
func syncDir(fsys FS, dir string) error {
	d, err := fsys.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
