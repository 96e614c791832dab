package engine

import (
	"path"
	"strings"
	"testing"
)

// FuzzGitignorePattern feeds arbitrary lines and paths to the ignore-file
// parser and matcher. Besides not panicking or hanging, the fast paths must
// agree with the general matcher.
func FuzzGitignorePattern(f *testing.F) {
	for _, seed := range [][2]string{
		{"*.log", "a/b.log"},
		{"!keep.log", "keep.log"},
		{"build/", "x/build"},
		{"/anchored", "anchored"},
		{"docs/**/gen", "docs/a/b/gen"},
		{`\#hash   `, "#hash"},
		{"[a-c[:digit:]x-z]?", "5x"},
		{"a[]-]b", "a]b"},
		{"**/bar/*/*", "deep/foo/bar/baz/x"},
		{strings.Repeat("*a", 12) + "b", strings.Repeat("a", 40)},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, line, rel string) {
		patterns := parseIgnore([]byte(line))
		rel = strings.Trim(path.Clean("/"+rel), "/")
		if rel == "" || strings.IndexByte(rel, 0) >= 0 {
			return
		}
		name := path.Base(rel)
		file := &ignoreFile{patterns: patterns}
		for _, isDir := range []bool{false, true} {
			file.verdict(rel, name, isDir)
		}
		for _, p := range patterns {
			subject := rel
			if p.basename {
				subject = name
			}
			full := wildmatch(p.glob, subject)
			if p.literal && full != (subject == p.glob) {
				t.Errorf("pattern %q on %q: literal fast path %v, wildmatch %v", p.glob, subject, !full, full)
			}
			if p.basename && p.suffix != "" && full != strings.HasSuffix(subject, p.suffix) {
				t.Errorf("pattern %q on %q: suffix fast path %v, wildmatch %v", p.glob, subject, !full, full)
			}
		}
	})
}
