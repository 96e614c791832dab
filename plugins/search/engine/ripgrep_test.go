package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ripgrep runs rg in dir and returns its output; exit status 1 (nothing
// found) is not an error. The flags keep rg to the rules the engine
// implements: no configuration file and no global ignore file.
func ripgrep(t *testing.T, dir string, args ...string) string {
	t.Helper()
	base := []string{"--no-config", "--no-ignore-global", "--color", "never"}
	cmd := exec.Command(rgPath(t), append(base, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return ""
	}
	if err != nil {
		t.Fatalf("rg %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// rgPath returns the path of rg or skips the test.
func rgPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not on PATH; the comparison with ripgrep needs it (apt package ripgrep)")
	}
	return p
}

type rgHit struct {
	path string
	line int
	text string
}

// rgArgs translates a query into rg flags and the directory to run rg in.
// A sub path is searched by running rg inside it rather than by passing it
// as an argument: rg 13 applies only some of the root's ignore rules to a
// path argument (BurntSushi/ripgrep#1757); from inside, it applies them all,
// as git does and this engine does.
func rgArgs(root string, q Query) (dir string, args []string) {
	if !q.Regex {
		args = append(args, "-F")
	}
	if q.IgnoreCase {
		args = append(args, "-i")
	}
	if q.Glob != "" {
		// rg matches globs relative to where it runs; the cases pair a sub
		// path only with globs that do not depend on it ("**/x.txt").
		args = append(args, "-g", q.Glob)
	}
	return filepath.Join(root, filepath.FromSlash(q.Path)), append(args, "-e", q.Pattern, "--", ".")
}

// rootRel turns a path printed by rg running in q.Path into one relative to
// the root.
func rootRel(q Query, printed string) string {
	return joinRel(q.Path, strings.TrimPrefix(printed, "./"))
}

// ripgrepHits returns what rg finds for q, in rg's path order. For a glob,
// files rg would skip without it are dropped: rg -g re-includes ignored and
// hidden files, this engine's Glob only narrows (see doc.go).
func ripgrepHits(t *testing.T, root string, q Query) []rgHit {
	t.Helper()
	dir, args := rgArgs(root, q)
	out := ripgrep(t, dir, append([]string{"--sort", "path", "--null", "-n", "--no-heading", "--with-filename"}, args...)...)
	allowed := ripgrepFiles(t, root, q)
	var hits []rgHit
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		path, rest, ok := strings.Cut(line, "\x00")
		num, text, ok2 := strings.Cut(rest, ":")
		n, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil {
			t.Fatalf("unexpected rg output line %q", line)
		}
		path = rootRel(q, path)
		if allowed != nil && !allowed[path] {
			continue
		}
		hits = append(hits, rgHit{path: path, line: n, text: strings.TrimSuffix(text, "\r")})
	}
	return hits
}

// ripgrepFiles lists the files rg searches for q without its glob, or nil
// when q has no glob.
func ripgrepFiles(t *testing.T, root string, q Query) map[string]bool {
	if q.Glob == "" {
		return nil
	}
	dir, _ := rgArgs(root, q)
	out := ripgrep(t, dir, "--files", "--null")
	files := map[string]bool{}
	for _, f := range strings.Split(out, "\x00") {
		files[rootRel(q, strings.TrimSpace(f))] = true
	}
	return files
}

// ripgrepCount sums rg -c: matching lines and files with a match.
func ripgrepCount(t *testing.T, root string, q Query) (total, files int) {
	t.Helper()
	dir, args := rgArgs(root, q)
	out := ripgrep(t, dir, append([]string{"-c", "--null"}, args...)...)
	allowed := ripgrepFiles(t, root, q)
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		path, num, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		if allowed != nil && !allowed[rootRel(q, path)] {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			t.Fatalf("unexpected rg -c output line %q", line)
		}
		total += n
		files++
	}
	return total, files
}

var ripgrepQueries = []struct {
	name string
	q    Query
}{
	{"literal", Query{Pattern: "needle"}},
	{"literal one byte", Query{Pattern: "Z"}},
	{"literal absent", Query{Pattern: "no such text anywhere"}},
	{"literal empty matches every line", Query{Pattern: ""}},
	{"literal metacharacters", Query{Pattern: "Reader("}},
	{"literal ignore case", Query{Pattern: "NEEDLE", IgnoreCase: true}},
	{"literal ignore case punctuation", Query{Pattern: "rEADER(", IgnoreCase: true}},
	{"literal ignore case non-ASCII", Query{Pattern: "ñandú", IgnoreCase: true}},
	{"literal ignore case kelvin", Query{Pattern: "kelvin k", IgnoreCase: true}},
	{"literal ignore case only k", Query{Pattern: "k", IgnoreCase: true}},
	{"literal UTF-8", Query{Pattern: "日本語"}},
	{"literal sub path", Query{Pattern: "needle", Path: "sub"}},
	{"literal deep sub path", Query{Pattern: "needle", Path: "sub/deep"}},
	{"literal path of ignored folder", Query{Pattern: "needle", Path: "build"}},
	{"literal hidden path", Query{Pattern: "needle", Path: ".hiddendir"}},
	{"literal glob basename", Query{Pattern: "needle", Glob: "*.txt"}},
	{"literal glob doublestar", Query{Pattern: "needle", Glob: "**/*.log"}},
	{"literal glob anchored", Query{Pattern: "needle", Glob: "sub/*.txt"}},
	{"literal glob anchored deep", Query{Pattern: "needle", Glob: "sub/deep/**/*.txt"}},
	{"literal glob folder", Query{Pattern: "needle", Glob: "docs/**"}},
	{"literal glob and path", Query{Pattern: "needle", Glob: "**/x.txt", Path: "sub"}},
	{"literal glob alternatives", Query{Pattern: "needle", Glob: "*.{md,csv}"}},
	{"regex benchmark shape", Query{Pattern: `func [A-Z][a-z]+Reader\(`, Regex: true}},
	{"regex anchored start", Query{Pattern: `^needle`, Regex: true}},
	{"regex anchored end", Query{Pattern: `needle$`, Regex: true}},
	{"regex end after CR", Query{Pattern: `two.$`, Regex: true}},
	{"regex text anchors", Query{Pattern: `\Aneedle|two\z`, Regex: true}},
	{"regex word boundary", Query{Pattern: `\bneedle\b`, Regex: true}},
	{"regex digits", Query{Pattern: `\d{3} \d+`, Regex: true}},
	{"regex alternation", Query{Pattern: `needle (one|two)`, Regex: true}},
	{"regex no literal", Query{Pattern: `[A-Z][a-z]+`, Regex: true}},
	{"regex empty match", Query{Pattern: `x*`, Regex: true}},
	{"regex empty line", Query{Pattern: `^$`, Regex: true}},
	{"regex ignore case", Query{Pattern: `néedle|HÉLLO`, Regex: true, IgnoreCase: true}},
	{"regex inline flag", Query{Pattern: `(?i)needle (ONE|two)`, Regex: true}},
	{"regex folded literal", Query{Pattern: `(?i)func newREADER`, Regex: true}},
	{"regex folded piece", Query{Pattern: `(?i)new(reader|writer)`, Regex: true}},
	{"regex repeated literal", Query{Pattern: `(needle ){1,}`, Regex: true}},
	{"regex unicode class", Query{Pattern: `\p{Han}+`, Regex: true}},
	{"regex literal only", Query{Pattern: `needle`, Regex: true}},
	{"regex long line", Query{Pattern: `é+ needle`, Regex: true}},
	{"regex glob", Query{Pattern: `func \w+`, Regex: true, Glob: "**/*.go"}},
}

func TestMatchesRipgrep(t *testing.T) {
	rgPath(t)
	root := makeTree(t)
	for _, tc := range ripgrepQueries {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := ripgrepHits(t, root, tc.q)
			wantTotal, wantFiles := ripgrepCount(t, root, tc.q)
			if wantTotal != len(want) {
				t.Fatalf("rg -c counts %d lines, rg -n lists %d", wantTotal, len(want))
			}
			q := tc.q
			q.MaxResults = 1 << 20
			got, err := Search(context.Background(), root, q)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != wantTotal || got.Files != wantFiles || got.Truncated {
				t.Errorf("Total %d, Files %d, Truncated %v; rg: %d lines in %d files",
					got.Total, got.Files, got.Truncated, wantTotal, wantFiles)
			}
			compareHits(t, got.Hits, want)
		})
	}
}

func compareHits(t *testing.T, got []Hit, want []rgHit) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Errorf("missing hit %s:%d:%q", want[i].path, want[i].line, want[i].text)
		case i >= len(want):
			t.Errorf("extra hit %s:%d:%q", got[i].Path, got[i].Line, got[i].Text)
		case got[i].Path != want[i].path || got[i].Line != want[i].line:
			t.Errorf("hit %d is %s:%d, rg has %s:%d", i, got[i].Path, got[i].Line, want[i].path, want[i].line)
		case len(want[i].text) <= MaxLineBytes && got[i].Text != want[i].text:
			t.Errorf("hit %s:%d text %q, rg has %q", got[i].Path, got[i].Line, got[i].Text, want[i].text)
		case len(want[i].text) > MaxLineBytes && !strings.Contains(got[i].Text, "[line cut, "+strconv.Itoa(len(want[i].text))+" bytes]"):
			t.Errorf("hit %s:%d: long line text %q lacks the cut marker", got[i].Path, got[i].Line, got[i].Text)
		}
	}
}

// TestGoSourceMatchesRipgrep compares the totals of the benchmark queries on
// Go's source tree with rg -c.
func TestGoSourceMatchesRipgrep(t *testing.T) {
	rgPath(t)
	src := goSource(t)
	for _, q := range benchQueries {
		t.Run(q.Pattern, func(t *testing.T) {
			wantTotal, wantFiles := ripgrepCount(t, src, q)
			got, err := Search(context.Background(), src, q)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != wantTotal || got.Files != wantFiles {
				t.Errorf("Total %d in %d files; rg -c: %d in %d files", got.Total, got.Files, wantTotal, wantFiles)
			}
		})
	}
}

// goSource returns $GOROOT/src or skips.
func goSource(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT failed (%v); the Go source tree is the benchmark corpus", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		tb.Skipf("%s is missing; the Go source tree is the benchmark corpus", src)
	}
	return src
}

// benchQueries are the two searches measured against ripgrep.
var benchQueries = []Query{
	{Pattern: "func NewReader"},
	{Pattern: `func [A-Z][a-z]+Reader\(`, Regex: true},
}
