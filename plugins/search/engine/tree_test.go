package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeFiles is the workspace the ripgrep comparison runs on. It exercises
// every rule the engine shares with ripgrep: ignore files at several levels
// with negation, directory-only, anchored and "**" patterns,
// .git/info/exclude, hidden entries, a binary file, line endings, a byte
// order mark, UTF-8 text and path ordering.
var treeFiles = map[string]string{
	".git/info/exclude": "excluded_by_info.txt\n",
	".git/config":       "needle in git config\n",
	".gitignore": strings.Join([]string{
		"# comment line, then a blank one",
		"",
		"*.log",
		"!keep.log",
		"build/",
		"/anchored.txt",
		"docs/**/gen",
		"tmp*",
		"!.visible_hidden",
		`\#hash.txt`,
		"trailing.txt   ",
		"data[0-9].csv",
		"notadir.txt/",
		"/sub/deep/**/drop.txt",
	}, "\n") + "\n",
	"a.txt":                 "first line\nneedle here\nno match\nNeedle upper\nneedle again needle twice\n",
	"a.b.txt":               "needle in a dotted name\n",
	"a/b.txt":               "needle in a/b\n",
	"Z.txt":                 "needle in capital Z\n",
	"app.log":               "needle in ignored log\n",
	"keep.log":              "needle in kept log\n",
	"anchored.txt":          "needle anchored at root\n",
	"excluded_by_info.txt":  "needle excluded by info/exclude\n",
	"#hash.txt":             "needle behind escaped hash\n",
	"trailing.txt":          "needle behind trailing spaces\n",
	"data1.csv":             "needle,in,csv\n",
	"data10.csv":            "needle,not,ignored\n",
	"notadir.txt":           "needle: dir-only pattern does not match a file\n",
	"tmpfile.txt":           "needle in tmp file\n",
	"tmpdir/inner.txt":      "needle in tmp dir\n",
	"build/out.txt":         "needle in build\n",
	"docs/readme.md":        "needle in docs\n",
	"docs/gen/g.txt":        "needle in docs/gen\n",
	"docs/a/b/gen/g.txt":    "needle in docs/a/b/gen\n",
	"docs/a/b/kept.txt":     "needle in docs/a/b\n",
	".hidden.txt":           "needle hidden\n",
	".hiddendir/file.txt":   "needle in hidden dir\n",
	".visible_hidden":       "needle in whitelisted hidden file\n",
	".harness/state.txt":    "needle in harness state\n",
	"binary.dat":            "needle before nul\x00needle after nul\n",
	"crlf.txt":              "needle one\r\nplain\r\nneedle two\r\n",
	"nofinal.txt":           "x\nneedle at the end",
	"empty.txt":             "",
	"blank_lines.txt":       "\n\n\nneedle\n\n",
	"bom.txt":               "\ufeffneedle after bom\nsecond needle\n",
	"utf8.txt":              "héllo needle ñandú 日本語 needle\nÑANDÚ grande\nKelvin \u212A sign\nplain k\n",
	"code.go":               "package x\n\nfunc NewReader() {}\nfunc NewWriter() {}\nfunc newReader() {}\n// Reader( is here\nfunc OldReader(r io.Reader) {}\n",
	"long.txt":              strings.Repeat("abcdé", 300) + " needle " + strings.Repeat("xyz", 400) + "\nshort needle\n",
	"sub/.gitignore":        "local.txt\n!important.log\n/only_here.txt\ndeep/**/x.txt\n",
	"sub/x.txt":             "needle in sub\n123 456 needle\n",
	"sub/local.txt":         "needle local ignored\n",
	"sub/important.log":     "needle important log kept by nested negation\n",
	"sub/only_here.txt":     "needle anchored in sub\n",
	"sub/anchored.txt":      "needle not anchored here\n",
	"sub/build/b.txt":       "needle in nested build\n",
	"sub/deep/x.txt":        "needle deep x zero dirs\n",
	"sub/deep/a/b/x.txt":    "needle deep x two dirs\n",
	"sub/deep/a/y.txt":      "needle deep y\n",
	"sub/deep/a/drop.txt":   "needle dropped by root pattern\n",
	"sub/deep/.gitignore":   "!x.txt\n*.md\n",
	"sub/deep/c/x.txt":      "needle deep c x\n",
	"sub/deep/notes.md":     "needle in md ignored in deep\n",
	"sub/deep/inner/go.go":  "package inner\nfunc NewReader() {}\n",
	"sub/nested/.gitignore": "*\n!*.txt\n!*/\n",
	"sub/nested/keep.txt":   "needle kept by star negation\n",
	"sub/nested/drop.md":    "needle dropped by star\n",
	"sub/nested/d/keep.txt": "needle nested dir kept\n",
	"sub/nested/d/drop.md":  "needle nested dir dropped\n",
	"many/f00.txt":          "needle many\n",
}

// manyFiles adds enough files to one directory that the walk splits it
// into several jobs.
func manyFiles(files map[string]string) {
	for i := 1; i < 3*filesPerJob; i++ {
		files[fmt.Sprintf("many/f%02d.txt", i)] = fmt.Sprintf("needle many %d\n", i)
	}
}

// makeTree writes treeFiles and the symbolic links under a new temporary
// directory and returns it.
func makeTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{}
	for k, v := range treeFiles {
		files[k] = v
	}
	manyFiles(files)
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link.txt": "a.txt", // a link to a file is not followed
		"linkdir":  "sub",   // nor a link to a directory
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skipf("cannot create symbolic links here: %v", err)
		}
	}
	return root
}
