package terminal

import (
	"os"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

// pluginBinary is cmd/harness-tool-terminal, built once by TestMain.
var pluginBinary string

// probeBinary is testdata/sandboxprobe, built once by TestMain: the
// sandbox tests run it inside the sandbox.
var probeBinary string

func TestMain(m *testing.M) {
	// In-process tests run commands through this test binary: it is the
	// helper when started as one (internal/helper's init diverts it).
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// Helpers started from a -race test binary would each linger for the
	// race runtime's default one second at exit.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	pluginBinary = testkit.MustBuild("./cmd/harness-tool-terminal")
	probeBinary = testkit.MustBuild("./testdata/sandboxprobe")
	defer removePrivateTemp()
	return testkit.Run(m)
}
