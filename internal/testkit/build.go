package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// built holds the binaries of this test process, each built once, in one
// temporary folder that Main deletes.
var built struct {
	mu   sync.Mutex
	dir  string
	byPk map[string]*binary
}

type binary struct {
	once sync.Once
	path string
	err  error
}

// Build returns the path of the Go main package pkg (as `go build` takes
// it, relative to the test's folder: "./testdata/testplugin", "." or
// "../../cmd/harness"), built on first use in this test process; later
// calls, from any test, return the same file. A failed build fails tb with
// go's output. The package's TestMain calls Main, which deletes the
// binaries when the tests are done.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	path, err := build(pkg)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// MustBuild is Build for a TestMain that needs a binary before any test
// runs: a failed build ends the test process with go's output.
func MustBuild(pkg string) string {
	path, err := build(pkg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return path
}

func build(pkg string) (string, error) {
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return "", err
	}
	built.mu.Lock()
	if built.dir == "" {
		if built.dir, err = os.MkdirTemp("", "testkit-bin-"); err != nil {
			built.mu.Unlock()
			return "", err
		}
		built.byPk = map[string]*binary{}
	}
	b, ok := built.byPk[abs]
	if !ok {
		// A folder per package: two packages may share a base name.
		b = &binary{path: filepath.Join(built.dir, strconv.Itoa(len(built.byPk)), filepath.Base(abs))}
		built.byPk[abs] = b
	}
	built.mu.Unlock()
	b.once.Do(func() {
		if out, err := exec.Command("go", "build", "-o", b.path, pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	return b.path, b.err
}

// RemoveBuilt deletes the binaries Build has made so far; Main and Run
// call it, and a TestMain that does not use them (bench) calls it after
// m.Run.
func RemoveBuilt() {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
		built.dir, built.byPk = "", nil
	}
}
