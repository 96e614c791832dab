package workspace

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"github.com/harness-agent/harness/sdk"
)

// Explain turns err, from an operation of tool on the path name (as the
// model gave it), into an *sdk.Error whose message starts with the tool
// and says what happened to which path. Problems the model can fix by
// choosing another path are invalid_args; an *sdk.Error keeps its kind.
func Explain(tool string, fsys FS, name string, err error) *sdk.Error {
	var se *sdk.Error
	if errors.As(err, &se) {
		return &sdk.Error{Kind: se.Kind, Message: tool + ": " + se.Message, RetryAfter: se.RetryAfter}
	}
	root := fsys.Root()
	invalid := func(format string, args ...any) *sdk.Error {
		return sdk.Errorf(sdk.KindInvalidArgs, "%s: "+format, append([]any{tool}, args...)...)
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e := sdk.AsError(err)
		return &sdk.Error{Kind: e.Kind, Message: tool + ": " + e.Message}
	case errors.Is(err, fs.ErrNotExist):
		return invalid("%q does not exist in the workspace %s", name, root)
	case errors.Is(err, syscall.ENOTDIR):
		return invalid("%q is not a path in the workspace %s: one of its parent directories is a file", name, root)
	case errors.Is(err, syscall.EISDIR):
		return invalid("%q is a directory, not a file", name)
	case errors.Is(err, syscall.ELOOP):
		return invalid("%q cannot be resolved in the workspace %s: too many levels of symbolic links", name, root)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return invalid("%q is too long a name for the file system", name)
	case errors.Is(err, fs.ErrPermission):
		return invalid("permission denied for %q in the workspace %s", name, root)
	}
	return sdk.Errorf(sdk.KindInternal, "%s: %q: %v", tool, name, err)
}
