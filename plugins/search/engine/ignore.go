package engine

import (
	"bytes"
	"strings"
)

// verdict is what one ignore file says about a path.
type verdict int8

const (
	undecided verdict = iota // no pattern matched: ask the parent directory
	ignored                  // the last matching pattern excludes the path
	kept                     // the last matching pattern is a negation ("!foo")
)

// ignorePattern is one line of a .gitignore file, compiled.
type ignorePattern struct {
	glob     string // without the '!', the leading '/' and the trailing '/'
	negate   bool
	dirOnly  bool   // "foo/": matches directories only
	basename bool   // no '/' inside: matched against the entry's name at any depth
	literal  bool   // no glob metacharacters: plain string comparison
	suffix   string // the pattern is '*' followed by this literal ("*.log")
}

// ignoreFile holds the patterns of one ignore file and the directory they
// are relative to. Files chain to the ignore file of the nearest ancestor
// directory that has one; the root of the chain is .git/info/exclude, which
// git and ripgrep rank below every .gitignore.
type ignoreFile struct {
	parent   *ignoreFile
	base     string // directory of the file, relative to the root, "" or ending in '/'
	patterns []ignorePattern
}

// parseIgnore compiles the content of a .gitignore file. Lines that are not
// valid patterns are dropped, as git and ripgrep do.
func parseIgnore(content []byte) []ignorePattern {
	content = bytes.TrimPrefix(content, []byte("\ufeff"))
	var patterns []ignorePattern
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = nil
		}
		if p, ok := parseIgnoreLine(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			patterns = append(patterns, p)
		}
	}
	return patterns
}

// parseIgnoreLine compiles one line following gitignore(5): '#' starts a
// comment, trailing spaces are dropped unless escaped with '\', '!' negates,
// a trailing '/' restricts the pattern to directories, and a '/' anywhere
// else anchors it to the directory of the ignore file.
func parseIgnoreLine(line string) (ignorePattern, bool) {
	if line == "" || line[0] == '#' || strings.IndexByte(line, 0) >= 0 {
		return ignorePattern{}, false
	}
	line = trimTrailingSpaces(line)
	var p ignorePattern
	if line != "" && line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if !strings.Contains(line, "/") {
		p.basename = true
	}
	line = strings.TrimPrefix(line, "/")
	if line == "" || !validGlob(line) {
		return ignorePattern{}, false
	}
	p.glob = line
	p.literal = !strings.ContainsAny(line, "*?[\\")
	if rest, ok := strings.CutPrefix(line, "*"); ok && !strings.ContainsAny(rest, "*?[\\") {
		p.suffix = rest
	}
	return p, true
}

// trimTrailingSpaces drops unescaped trailing spaces (not tabs), like git.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// Count the backslashes before the space: an odd number escapes it.
		bs := 0
		for i := end - 2; i >= 0 && s[i] == '\\'; i-- {
			bs++
		}
		if bs%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}

// validGlob rejects patterns that can never match because a bracket
// expression is not closed or names an unknown class; git aborts every
// match of such a pattern, ripgrep refuses the line.
func validGlob(glob string) bool {
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			i++
		case '[':
			end, _ := matchBracket(glob, i, 0)
			if end < 0 {
				return false
			}
			i = end
		}
	}
	return true
}

// matches reports whether the pattern matches the entry at rel (relative to
// the ignore file's directory) whose last segment is name.
func (p *ignorePattern) matches(rel, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	subject := rel
	if p.basename {
		subject = name
	}
	switch {
	case p.literal:
		return subject == p.glob
	case p.suffix != "" && p.basename:
		return strings.HasSuffix(subject, p.suffix)
	}
	return wildmatch(p.glob, subject)
}

// verdict applies the file's patterns to rel (relative to the workspace
// root): the last matching pattern decides.
func (f *ignoreFile) verdict(rel, name string, isDir bool) verdict {
	local := rel[len(f.base):]
	for i := len(f.patterns) - 1; i >= 0; i-- {
		p := &f.patterns[i]
		if p.matches(local, name, isDir) {
			if p.negate {
				return kept
			}
			return ignored
		}
	}
	return undecided
}

// decide walks the chain from the deepest ignore file up: the first file
// with an opinion decides.
func (f *ignoreFile) decide(rel, name string, isDir bool) verdict {
	for ; f != nil; f = f.parent {
		if v := f.verdict(rel, name, isDir); v != undecided {
			return v
		}
	}
	return undecided
}
