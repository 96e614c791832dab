package approval

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/harness-agent/harness/core/shellpolicy"
)

// errOutside says a path resolves outside the workspace.
var errOutside = errors.New("outside the workspace")

// workspacePath returns where a write to p lands, as a slash-separated path
// relative to workspace (an absolute path with symlinks resolved). p is
// relative to the workspace or absolute. Symlinks are followed component by
// component, a dangling one to the target a write would create; components
// that do not exist are taken as written.
func workspacePath(workspace, p string) (string, error) {
	if !filepath.IsAbs(p) {
		// Not filepath.Join: cleaning "link/../f" lexically would skip the
		// link, which the kernel follows before going up.
		p = workspace + string(filepath.Separator) + p
	}
	real, err := shellpolicy.RealPath(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(workspace, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errOutside
	}
	return filepath.ToSlash(rel), nil
}
