package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxLinks bounds the symlinks followed while resolving one path, as the
// kernel does (ELOOP).
const maxLinks = 40

// errOutside says a path resolves outside the workspace.
var errOutside = errors.New("outside the workspace")

// workspacePath returns where a write to p lands, as a slash-separated path
// relative to workspace (an absolute path with symlinks resolved). p is
// relative to the workspace or absolute. Symlinks are followed component by
// component, a dangling one to the target a write would create; components
// that do not exist are taken as written.
func workspacePath(workspace, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	real, err := realPath(filepath.Clean(p))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(workspace, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errOutside
	}
	return filepath.ToSlash(rel), nil
}

// realPath resolves the symlinks of the absolute, clean path p.
func realPath(p string) (string, error) {
	vol := filepath.VolumeName(p)
	done := vol + string(filepath.Separator)
	todo := splitPath(p[len(vol):])
	for links := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		if name == ".." {
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", p)
		}
		dest, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(dest) {
			done = filepath.VolumeName(dest) + string(filepath.Separator)
			dest = dest[len(filepath.VolumeName(dest)):]
		}
		todo = append(splitPath(dest), todo...)
	}
	return done, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == filepath.Separator || r == '/' })
}

// matchGlobs returns the first of globs (permissions.write, relative to the
// workspace) that rel matches, or "".
func matchGlobs(rel string, globs []string) string {
	for _, g := range globs {
		if ok, err := doublestar.Match(strings.TrimPrefix(g, "./"), rel); err == nil && ok {
			return g
		}
	}
	return ""
}
