package workspace

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/spf13/afero"

	"github.com/harness-agent/harness/sdk"
)

// OpenRegular opens name for reading and returns it with its FileInfo when
// it is a regular file. The open never blocks and the check is made on the
// opened file, not on the name: a named pipe, a device or a socket, even
// one swapped in after an earlier look, is refused (invalid_args) instead
// of waited on. A directory is refused with EISDIR, which Explain words.
func OpenRegular(fsys FS, name string) (afero.File, fs.FileInfo, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case fi.IsDir():
		err = &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		err = NotRegular(name, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// NotRegular is the refusal of a file that is neither a regular file nor
// a directory.
func NotRegular(name string, mode fs.FileMode) *sdk.Error {
	return sdk.Errorf(sdk.KindInvalidArgs, "%q is not a regular file (%s): file tools read and write regular files only", name, describeType(mode))
}

func describeType(mode fs.FileMode) string {
	switch t := mode.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return t.String()
	}
}
