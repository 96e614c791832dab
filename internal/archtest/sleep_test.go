package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowSleep is the marker that lets a test call time.Sleep, on the line of
// the call or the line above it, followed by the reason: a fake that
// simulates something slow, never a wait for something to happen.
const allowSleep = "testkit:allow-sleep"

// TestNoSleepInTests fails when a test file calls time.Sleep without the
// marker: a test waits for the condition it needs (a channel, an event, a
// line on a pipe, or testkit.WaitFor), so that it neither flakes on a
// loaded machine nor wastes time on an idle one.
func TestNoSleepInTests(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "third_party", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		for _, at := range unmarkedSleeps(t, path) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s:%d calls time.Sleep: wait for the condition instead (a channel, an event, testkit.WaitFor), or mark a fake's deliberate slowness with // %s <reason>", rel, at, allowSleep)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatalf("no test files found under %s", root)
	}
}

// TestUnmarkedSleepsAreCaught runs the check over a fixture that calls
// time.Sleep, under another name, in the ways it must catch (the lines
// marked "want": no marker, a marker without a reason, the function taken
// as a value) and the ways it must allow.
func TestUnmarkedSleepsAreCaught(t *testing.T) {
	path := filepath.Join("testdata", "sleeps", "sleeps_test.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(line, "// want") {
			want = append(want, i+1)
		}
	}
	if len(want) == 0 {
		t.Fatal("the fixture marks no line")
	}
	if got := unmarkedSleeps(t, path); !slices.Equal(got, want) {
		t.Errorf("flagged lines %v, want %v", got, want)
	}
}

// unmarkedSleeps returns the lines of path that call time.Sleep without
// the marker on that line or the one above.
func unmarkedSleeps(t *testing.T, path string) []int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	timeName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	if timeName == "" || timeName == "_" {
		return nil
	}
	marked := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if _, reason, ok := strings.Cut(c.Text, allowSleep); ok && strings.TrimSpace(reason) != "" {
				line := fset.Position(c.Slash).Line
				marked[line], marked[line+1] = true, true
			}
		}
	}
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Sleep" {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == timeName {
			if line := fset.Position(sel.Pos()).Line; !marked[line] {
				lines = append(lines, line)
			}
		}
		return true
	})
	return lines
}
