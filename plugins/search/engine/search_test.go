package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/harness-agent/harness/sdk"
)

func TestSearchErrors(t *testing.T) {
	t.Parallel()
	root := makeTree(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Skipf("cannot create symbolic links here: %v", err)
	}
	tests := []struct {
		name string
		q    Query
		kind sdk.ErrorKind
		msg  []string // parts the message must contain
	}{
		{"invalid regex", Query{Pattern: "foo(", Regex: true}, sdk.KindInvalidArgs,
			[]string{`"foo("`, "missing closing )"}},
		{"invalid regex class", Query{Pattern: "[z-a]", Regex: true}, sdk.KindInvalidArgs,
			[]string{`"[z-a]"`, "invalid character class range"}},
		{"regex with a line feed", Query{Pattern: `a\nb`, Regex: true}, sdk.KindInvalidArgs,
			[]string{"line break"}},
		{"literal with a line feed", Query{Pattern: "a\nb"}, sdk.KindInvalidArgs,
			[]string{"line break"}},
		{"parent path", Query{Pattern: "x", Path: "../x"}, sdk.KindPathEscape,
			[]string{`"../x"`, "outside the workspace"}},
		{"parent path after clean", Query{Pattern: "x", Path: "sub/../../x"}, sdk.KindPathEscape,
			[]string{"outside the workspace"}},
		{"absolute path", Query{Pattern: "x", Path: "/etc"}, sdk.KindPathEscape,
			[]string{`"/etc"`}},
		{"symbolic link out", Query{Pattern: "x", Path: "escape"}, sdk.KindPathEscape,
			[]string{"symbolic link"}},
		{"missing path", Query{Pattern: "x", Path: "nope"}, sdk.KindInvalidArgs,
			[]string{`"nope" does not exist`}},
		{"harness state", Query{Pattern: "x", Path: ".harness"}, sdk.KindInvalidArgs,
			[]string{".harness"}},
		{"git data", Query{Pattern: "x", Path: "sub/.git/objects"}, sdk.KindInvalidArgs,
			[]string{".git"}},
		{"bad glob", Query{Pattern: "x", Glob: "[a"}, sdk.KindInvalidArgs,
			[]string{`"[a"`}},
		{"negative max", Query{Pattern: "x", MaxResults: -1}, sdk.KindInvalidArgs,
			[]string{"max_results"}},
		{"too much context", Query{Pattern: "x", ContextLines: 11}, sdk.KindInvalidArgs,
			[]string{"context_lines", "10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Search(context.Background(), root, tc.q)
			var e *sdk.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *sdk.Error of kind %s", err, tc.kind)
			}
			if e.Kind != tc.kind {
				t.Errorf("kind %s, want %s (%v)", e.Kind, tc.kind, err)
			}
			for _, part := range tc.msg {
				if !strings.Contains(e.Message, part) {
					t.Errorf("message %q lacks %q", e.Message, part)
				}
			}
		})
	}
}

func TestSearchMissingRoot(t *testing.T) {
	t.Parallel()
	_, err := Search(context.Background(), filepath.Join(t.TempDir(), "gone"), Query{Pattern: "x"})
	if sdk.KindOf(err) != sdk.KindInvalidArgs {
		t.Errorf("error %v, want kind %s", err, sdk.KindInvalidArgs)
	}
}

// The first MaxResults hits are the first of the full, sorted list, and
// the same on every run whatever the scheduling.
func TestSearchTruncatesDeterministically(t *testing.T) {
	t.Parallel()
	root := makeTree(t)
	ctx := context.Background()
	all, err := Search(ctx, root, Query{Pattern: "needle", MaxResults: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{1, 3, 40, len(all.Hits) - 1} {
		for range 20 {
			got, err := Search(ctx, root, Query{Pattern: "needle", MaxResults: max})
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != all.Total || got.Files != all.Files || !got.Truncated {
				t.Fatalf("max %d: Total %d Files %d Truncated %v; want %d %d true",
					max, got.Total, got.Files, got.Truncated, all.Total, all.Files)
			}
			if !reflect.DeepEqual(got.Hits, all.Hits[:max]) {
				t.Fatalf("max %d: hits are not the first %d of the full list:\n%v", max, max, got.Hits)
			}
		}
	}
}

func TestSearchDefaultCap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(strings.Repeat("line\n", 3*DefaultMaxResults)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Search(context.Background(), root, Query{Pattern: ""})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 3*DefaultMaxResults || len(res.Hits) != DefaultMaxResults || !res.Truncated {
		t.Errorf("Total %d, %d hits, Truncated %v; want %d, %d, true",
			res.Total, len(res.Hits), res.Truncated, 3*DefaultMaxResults, DefaultMaxResults)
	}
}

// Context lines are checked against the file content split independently.
func TestSearchContextLines(t *testing.T) {
	t.Parallel()
	root := makeTree(t)
	for _, n := range []int{1, 2, 10} {
		res, err := Search(context.Background(), root, Query{Pattern: "needle", ContextLines: n, MaxResults: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			lines := fileLines(t, root, h.Path)
			i := h.Line - 1
			wantBefore := lines[max(i-n, 0):i]
			wantAfter := lines[i+1 : min(i+1+n, len(lines))]
			if !equalTexts(h.Before, wantBefore) || !equalTexts(h.After, wantAfter) {
				t.Errorf("%s:%d with %d lines of context: before %q after %q; want %q %q",
					h.Path, h.Line, n, h.Before, h.After, wantBefore, wantAfter)
			}
		}
	}
}

// fileLines splits a file the way ripgrep numbers lines.
func fileLines(t *testing.T, root, rel string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimPrefix(string(b), "\ufeff")
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// equalTexts compares context lines; long lines are cut as hit texts are
// (TestLineText covers the cut).
func equalTexts(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != lineText([]byte(want[i]), nil) {
			return false
		}
	}
	return true
}

func TestLineText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400) + "needle" + strings.Repeat("日", 300)
	tests := []struct {
		name, line string
		column     int
		check      func(string) bool
	}{
		{"short", "plain\r", 0, func(s string) bool { return s == "plain" }},
		{"invalid UTF-8", "a\xffb", 0, func(s string) bool { return s == "a\uFFFDb" }},
		{"long, excerpt around the match", long, strings.Index(long, "needle"), func(s string) bool {
			return strings.Contains(s, "needle") && strings.HasPrefix(s, "…") &&
				strings.HasSuffix(s, "… [line cut, "+strconv.Itoa(len(long))+" bytes]")
		}},
		{"long, match at the start", "needle" + strings.Repeat("x", 1000), 0, func(s string) bool {
			return strings.HasPrefix(s, "needle") && strings.HasSuffix(s, "… [line cut, 1006 bytes]")
		}},
		{"long, match at the end", strings.Repeat("x", 1000) + "needle", 1000, func(s string) bool {
			return strings.HasPrefix(s, "…") && strings.HasSuffix(s, "needle [line cut, 1006 bytes]")
		}},
	}
	for _, tc := range tests {
		got := lineText([]byte(tc.line), func([]byte) int { return tc.column })
		if !utf8.ValidString(got) || !tc.check(got) {
			t.Errorf("%s: lineText = %q", tc.name, got)
		}
		if len(got) > MaxLineBytes+len(" [line cut, 100000 bytes]")+2*len("…") {
			t.Errorf("%s: %d bytes, over the cap", tc.name, len(got))
		}
	}
}

func TestSearchFilePath(t *testing.T) {
	t.Parallel()
	root := makeTree(t)
	res, err := Search(context.Background(), root, Query{Pattern: "needle", Path: "sub/x.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Hit{{Path: "sub/x.txt", Line: 1, Text: "needle in sub"}, {Path: "sub/x.txt", Line: 2, Text: "123 456 needle"}}
	if !reflect.DeepEqual(res.Hits, want) || res.Total != 2 || res.Files != 1 {
		t.Errorf("got %+v", res)
	}
	// A link named as the path is followed while it stays inside the root,
	// as rg follows a path given on its command line; the hits name the
	// file it leads to, which is what the search opened.
	res, err = Search(context.Background(), root, Query{Pattern: "needle", Path: "link.txt"})
	if err != nil || res.Total != 2 || res.Hits[0].Path != "a.txt" {
		t.Errorf("through a link: %+v, %v", res, err)
	}
}

func TestSearchCanceled(t *testing.T) {
	t.Parallel()
	root := makeTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, root, Query{Pattern: "needle"}); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestComparePaths(t *testing.T) {
	t.Parallel()
	ordered := []string{"Z.txt", "a", "a/b", "a/b/c", "a.b", "a0", "ab", "b"}
	for i := range ordered {
		for j := range ordered {
			got := comparePaths(ordered[i], ordered[j])
			if (i < j) != (got < 0) || (i == j) != (got == 0) {
				t.Errorf("comparePaths(%q, %q) = %d", ordered[i], ordered[j], got)
			}
		}
	}
}

func TestGlobFolders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		glob string
		in   []string // folders that may hold matching files
		out  []string // folders that cannot
	}{
		{"*.go", []string{"a", "a/b"}, nil},
		{"**/*.go", []string{"a", "a/b"}, nil},
		{"src/app/**/*.go", []string{"src", "src/app", "src/app/x/y"}, []string{"lib", "src/apple", "srcx"}},
		{"/src/*.go", []string{"src"}, []string{"lib"}},
		{"src/a*/*.go", []string{"src", "src/ab"}, []string{"lib"}},
		{"{src,lib}/*.go", []string{"src", "lib", "other"}, nil},
		{`src\[1]/*.go`, []string{"src[1]", "other"}, nil},
	}
	for _, tc := range tests {
		g, err := compileGlob(tc.glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range tc.in {
			if !g.mayContain(dir) {
				t.Errorf("glob %q: folder %q pruned", tc.glob, dir)
			}
		}
		for _, dir := range tc.out {
			if g.mayContain(dir) {
				t.Errorf("glob %q: folder %q walked", tc.glob, dir)
			}
		}
	}
}
