package shellpolicy

import (
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

// place is where a redirection writes.
type place int

const (
	unknownPlace place = iota // an expansion, a cd before it, or no workspace
	outsidePlace
	insidePlace
)

// target is a redirection target resolved against the workspace.
type target struct {
	written string
	place   place
	rel     string // slash-separated path inside the workspace, for insidePlace
}

// locate resolves where w writes. The shell opens relative targets in its
// working directory, the workspace, unless the command changes directory.
func locate(w word, workspace string, changesDir bool) target {
	t := target{written: w.text}
	if w.dynamic || workspace == "" || !filepath.IsAbs(workspace) {
		return t
	}
	p := w.text
	if !filepath.IsAbs(p) {
		if changesDir {
			return t
		}
		// Not filepath.Join: cleaning "link/../f" lexically would skip the
		// link, and the kernel follows it before going up.
		p = workspace + string(filepath.Separator) + p
	}
	real, err := RealPath(p)
	if err != nil {
		return t
	}
	rel, err := filepath.Rel(workspace, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		t.place = outsidePlace
		return t
	}
	t.place, t.rel = insidePlace, filepath.ToSlash(rel)
	return t
}

// RealPath resolves the symlinks of the absolute path p component by
// component, applying each ".." to the path resolved so far, as the kernel
// does. Components that do not exist are taken as written. Unlike
// filepath.EvalSymlinks on the longest existing prefix, it also follows a
// dangling link, which a write would follow to create the link's target.
// The approval pipeline resolves write_file paths with it too.
func RealPath(p string) (string, error) {
	vol := filepath.VolumeName(p)
	root := vol + string(filepath.Separator)
	done := root
	todo := splitPath(p[len(vol):])
	for links := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		if name == "." {
			continue
		}
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

// MatchWriteGlob returns the first of globs (permissions.write, relative
// to the workspace) that the slash path rel matches, or "".
func MatchWriteGlob(rel string, globs []string) string {
	for _, g := range globs {
		if ok, err := doublestar.Match(strings.TrimPrefix(g, "./"), rel); err == nil && ok {
			return g
		}
	}
	return ""
}
