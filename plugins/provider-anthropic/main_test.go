package anthropic_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/harness-agent/harness/internal/testfs"
)

// binaries holds the plugin binary the subprocess tests build (once, on
// first use).
var binaries *testfs.Binaries

func TestMain(m *testing.M) {
	var err error
	binaries, err = testfs.NewBinaries("provider-anthropic-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	binaries.Remove()
	if code == 0 {
		// No goroutine may outlive the tests: not a stream, a watchdog, an
		// HTTP connection of a provider, or a plugin client.
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// pluginBinary builds cmd/harness-provider-anthropic into a temporary folder.
func pluginBinary(t *testing.T) string {
	t.Helper()
	return binaries.Build(t, "./cmd/harness-provider-anthropic")
}
