package testfs

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// Binaries builds the Go main packages a test process needs, each once,
// into one temporary folder that Remove deletes (call it from TestMain
// after m.Run).
type Binaries struct {
	dir   string
	mu    sync.Mutex
	built map[string]*build
}

type build struct {
	once sync.Once
	path string
	err  error
}

// NewBinaries makes the folder; prefix names it (e.g. "provider-deepseek-test-").
func NewBinaries(prefix string) (*Binaries, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	return &Binaries{dir: dir, built: map[string]*build{}}, nil
}

// Build returns the path of pkg (a package path as `go build` takes it,
// relative to the test's folder, e.g. "./cmd/harness-provider-deepseek")
// built on first use; a failed build fails the test with go's output.
func (b *Binaries) Build(tb testing.TB, pkg string) string {
	tb.Helper()
	b.mu.Lock()
	bd, ok := b.built[pkg]
	if !ok {
		bd = &build{path: filepath.Join(b.dir, path.Base(pkg))}
		b.built[pkg] = bd
	}
	b.mu.Unlock()
	bd.once.Do(func() {
		if out, err := exec.Command("go", "build", "-o", bd.path, pkg).CombinedOutput(); err != nil {
			bd.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if bd.err != nil {
		tb.Fatal(bd.err)
	}
	return bd.path
}

// Remove deletes the folder and what was built in it.
func (b *Binaries) Remove() { os.RemoveAll(b.dir) }
