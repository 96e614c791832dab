package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// pluginBinary is cmd/harness-tool-terminal, built once by TestMain.
var pluginBinary string

// probeBinary is testdata/sandboxprobe, built once by TestMain: the
// sandbox tests run it inside the sandbox.
var probeBinary string

func TestMain(m *testing.M) {
	// In-process tests run commands through this test binary: it is the
	// helper when started as one.
	MaybeRunSandboxHelper()
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// Helpers started from a -race test binary would each linger for the
	// race runtime's default one second at exit.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	dir, err := os.MkdirTemp("", "terminal-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	pluginBinary = filepath.Join(dir, "harness-tool-terminal")
	probeBinary = filepath.Join(dir, "sandboxprobe")
	for bin, pkg := range map[string]string{pluginBinary: "./cmd/harness-tool-terminal", probeBinary: "./testdata/sandboxprobe"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	code := m.Run()
	removePrivateTemp()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines leaked: %v\n", err)
			return 1
		}
	}
	return code
}
