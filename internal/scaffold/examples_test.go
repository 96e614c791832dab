package scaffold_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/scaffold"
)

const repo = "../.."

// TestExamplesAreTheScaffold: examples/plugins/wordcount and greeter are
// what `harness plugins new` writes (but go.mod: they build inside this
// module), so the guide's listings of them are the scaffold's output, and
// the test suite compiles and tests them.
func TestExamplesAreTheScaffold(t *testing.T) {
	t.Parallel()
	for _, ex := range []struct{ name, kind string }{{"wordcount", scaffold.KindTool}, {"greeter", scaffold.KindProvider}} {
		dir := filepath.Join(t.TempDir(), ex.name)
		files, err := scaffold.Write(scaffold.Options{Name: ex.name, Kind: ex.kind, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f == "go.mod" {
				continue
			}
			got, err := os.ReadFile(filepath.Join(repo, "examples", "plugins", ex.name, f))
			if err != nil {
				t.Errorf("%v (regenerate: harness plugins new %s --kind %s examples/plugins/%s, then delete its go.mod)", err, ex.name, ex.kind, ex.name)
				continue
			}
			want, _ := os.ReadFile(filepath.Join(dir, f))
			if string(got) != string(want) {
				t.Errorf("examples/plugins/%s/%s differs from the scaffold's output: regenerate it (harness plugins new %s --kind %s)", ex.name, f, ex.name, ex.kind)
			}
		}
	}
}

var fence = regexp.MustCompile("(?m)^```(go|hcl)\n")

// TestGuideListingsAreExamples: every Go and HCL listing of
// docs/plugins.md follows a "<!-- listing: PATH -->" line and is that
// file of the repository, byte for byte.
func TestGuideListingsAreExamples(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repo, "docs", "plugins.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	locs := fence.FindAllStringIndex(doc, -1)
	if len(locs) == 0 {
		t.Fatal("docs/plugins.md has no Go or HCL listing")
	}
	for _, loc := range locs {
		before := strings.TrimSuffix(doc[:loc[0]], "\n")
		marker := before[strings.LastIndex(before, "\n")+1:]
		path, ok := strings.CutPrefix(marker, "<!-- listing: ")
		path, ok2 := strings.CutSuffix(path, " -->")
		line := strings.Count(doc[:loc[0]], "\n") + 1
		if !ok || !ok2 {
			t.Errorf("docs/plugins.md:%d: a listing without a <!-- listing: PATH --> line before it", line)
			continue
		}
		end := strings.Index(doc[loc[1]:], "\n```\n")
		if end < 0 {
			t.Fatalf("docs/plugins.md:%d: unterminated listing", line)
		}
		body := doc[loc[1] : loc[1]+end+1]
		file, err := os.ReadFile(filepath.Join(repo, path))
		if err != nil {
			t.Errorf("docs/plugins.md:%d: %v", line, err)
			continue
		}
		if string(file) != body {
			t.Errorf("docs/plugins.md:%d: the listing of %s differs from the file: paste the file again", line, path)
		}
	}
}
