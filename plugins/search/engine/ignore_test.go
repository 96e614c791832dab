package engine

import (
	"path"
	"testing"
)

func TestIgnoreFileVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		base    string // directory of the ignore file
		rel     string // entry, relative to the root
		isDir   bool
		want    verdict
	}{
		{"basename glob", "*.log", "", "a.log", false, ignored},
		{"basename glob at depth", "*.log", "", "x/y/a.log", false, ignored},
		{"basename glob on a directory", "*.log", "", "d.log", true, ignored},
		{"no match", "*.log", "", "a.txt", false, undecided},
		{"negation wins when last", "*.log\n!keep.log", "", "keep.log", false, kept},
		{"last match wins", "!keep.log\n*.log", "", "keep.log", false, ignored},
		{"directory only, directory", "build/", "", "build", true, ignored},
		{"directory only, file", "build/", "", "build", false, undecided},
		{"directory only at depth", "build/", "", "a/build", true, ignored},
		{"anchored", "/anchored", "", "anchored", false, ignored},
		{"anchored not below", "/anchored", "", "sub/anchored", false, undecided},
		{"middle slash anchors", "a/b", "", "a/b", false, ignored},
		{"middle slash anchors, deeper", "a/b", "", "x/a/b", false, undecided},
		{"leading double star", "**/foo", "", "x/y/foo", false, ignored},
		{"trailing double star", "foo/**", "", "foo/x/y", false, ignored},
		{"trailing double star not the folder", "foo/**", "", "foo", true, undecided},
		{"middle double star, zero folders", "a/**/b", "", "a/b", false, ignored},
		{"middle double star, folders", "a/**/b", "", "a/x/y/b", false, ignored},
		{"star does not cross slash", "a/*", "", "a/x/y", false, undecided},
		{"escaped hash", `\#hash`, "", "#hash", false, ignored},
		{"comment", "# comment", "", "# comment", false, undecided},
		{"escaped bang", `\!bang`, "", "!bang", false, ignored},
		{"trailing spaces dropped", "trailing   ", "", "trailing", false, ignored},
		{"escaped trailing space kept", `escaped\ `, "", "escaped ", false, ignored},
		{"leading space significant", "  lead", "", "  lead", false, ignored},
		{"bracket", "[ab].txt", "", "b.txt", false, ignored},
		{"unterminated bracket dropped", "[ab.txt", "", "[ab.txt", false, undecided},
		{"CRLF line", "foo\r\nbar\r\n", "", "foo", false, ignored},
		{"byte order mark", "\ufeff*.tmp", "", "x.tmp", false, ignored},
		{"nested anchored", "/x", "sub/", "sub/x", false, ignored},
		{"nested anchored not deeper", "/x", "sub/", "sub/y/x", false, undecided},
		{"nested slash pattern", "deep/**/x.txt", "sub/", "sub/deep/a/x.txt", false, ignored},
		{"star then folders back", "*\n!*/", "", "d", true, kept},
		{"star then folders back, file", "*\n!*/", "", "f", false, ignored},
		{"lone slash dropped", "/", "", "x", false, undecided},
		{"lone bang dropped", "!", "", "x", false, undecided},
		{"hidden name", ".env", "", ".env", false, ignored},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &ignoreFile{base: tc.base, patterns: parseIgnore([]byte(tc.content))}
			if got := f.verdict(tc.rel, path.Base(tc.rel), tc.isDir); got != tc.want {
				t.Errorf("%q in %q: verdict for %q = %v, want %v", tc.content, tc.base, tc.rel, got, tc.want)
			}
		})
	}
}

// A deeper ignore file decides before its parents; .git/info/exclude,
// at the top of the chain, comes last.
func TestIgnoreChain(t *testing.T) {
	t.Parallel()
	exclude := &ignoreFile{patterns: parseIgnore([]byte("secret.txt\n*.tmp"))}
	root := &ignoreFile{parent: exclude, patterns: parseIgnore([]byte("*.log\n!*.tmp"))}
	sub := &ignoreFile{parent: root, base: "sub/", patterns: parseIgnore([]byte("!important.log"))}
	tests := []struct {
		rel  string
		want verdict
	}{
		{"sub/important.log", kept},
		{"sub/other.log", ignored},
		{"sub/secret.txt", ignored},
		{"sub/x.tmp", kept}, // the root .gitignore outranks info/exclude
		{"sub/plain.txt", undecided},
	}
	for _, tc := range tests {
		if got := sub.decide(tc.rel, path.Base(tc.rel), false); got != tc.want {
			t.Errorf("decide(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}

func (v verdict) String() string {
	return [...]string{"undecided", "ignored", "kept"}[v]
}
