package workspace

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/harness-agent/harness/sdk"
)

// maxSymlinks bounds the symbolic links followed in one path, as Linux's
// MAXSYMLINKS does.
const maxSymlinks = 40

var (
	errNotDir = syscall.ENOTDIR
	errLoop   = syscall.ELOOP
)

// lexical cleans name and makes it relative to the workspace without
// touching the disk. An absolute name is accepted when it lies inside one
// of roots (the root as configured, or with its links resolved). The
// result is slash-separated; "." is the root.
func lexical(name string, roots ...string) (string, error) {
	root := roots[0]
	switch {
	case name == "":
		return "", sdk.Errorf(sdk.KindInvalidArgs, "the path is empty: give a path relative to the workspace %s", root)
	case strings.IndexByte(name, 0) >= 0:
		return "", sdk.Errorf(sdk.KindPathEscape, "%q is not a path in the workspace %s: it contains a NUL byte", name, root)
	case filepath.IsAbs(name):
		if rel, ok := inside(name, roots...); ok {
			return rel, nil
		}
		return "", escapeError(name, root, "")
	}
	rel := filepath.Clean(name)
	if !filepath.IsLocal(rel) {
		return "", escapeError(name, root, "")
	}
	return filepath.ToSlash(rel), nil
}

// inside returns the absolute path abs relative to the first of roots that
// holds it.
func inside(abs string, roots ...string) (string, bool) {
	abs = filepath.Clean(abs)
	for _, root := range roots {
		rel, err := filepath.Rel(root, abs)
		if err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// resolve returns name relative to the root as named (rel) and with its
// symbolic links resolved (real). When followLast is false a final
// symbolic link is kept: the operation is on the link itself.
func (r *RootFS) resolve(name string, followLast bool) (rel, real string, err error) {
	rel, err = lexical(name, r.dir, r.realDir)
	if err != nil {
		return "", "", err
	}
	real, err = r.walk(name, rel, followLast)
	if err != nil {
		return "", "", err
	}
	return rel, real, nil
}

// walk follows rel component by component inside the root, splicing in
// the target of each symbolic link, and fails as soon as the path leaves
// the root. Components after the first missing one are taken lexically:
// they name something to be created.
func (r *RootFS) walk(name, rel string, followLast bool) (string, error) {
	var (
		done    []string // resolved components: real directories, no links
		todo    = components(rel)
		links   int
		missing bool
		via     string // the last link followed, for messages
	)
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		if c == ".." {
			if len(done) == 0 {
				return "", escapeError(name, r.dir, via)
			}
			done = done[:len(done)-1]
			continue
		}
		if missing || (len(todo) == 0 && !followLast) {
			done = append(done, c)
			continue
		}
		cur := path.Join(path.Join(done...), c)
		fi, err := r.root.Lstat(cur)
		switch {
		case isMissing(err):
			missing = true
			done = append(done, c)
			continue
		case err != nil:
			return "", r.opError(name, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			done = append(done, c)
			continue
		}
		if links++; links > maxSymlinks {
			return "", &fs.PathError{Op: "resolve", Path: name, Err: errLoop}
		}
		target, err := r.root.Readlink(cur)
		if err != nil {
			return "", r.opError(name, err)
		}
		via = describeLink(cur, target)
		if filepath.IsAbs(target) {
			t, ok := inside(target, r.dir, r.realDir)
			if !ok {
				return "", escapeError(name, r.dir, via)
			}
			done = nil
			target = t
		}
		todo = append(components(filepath.ToSlash(target)), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

// components splits a slash-separated path, dropping empty and "." parts.
func components(p string) []string {
	var parts []string
	for part := range strings.SplitSeq(p, "/") {
		if part != "" && part != "." {
			parts = append(parts, part)
		}
	}
	return parts
}

func describeLink(link, target string) string {
	return fmt.Sprintf("%q is a symbolic link to %q", link, target)
}

// escapeError is the path_escape error for name; why, when set, says which
// symbolic link led out.
func escapeError(name, root, why string) *sdk.Error {
	msg := fmt.Sprintf("%q is outside the workspace %s", name, root)
	if why != "" {
		msg += ": " + why
	}
	return &sdk.Error{Kind: sdk.KindPathEscape, Message: msg}
}
