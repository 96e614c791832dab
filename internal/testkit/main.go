package testkit

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Main is a package's TestMain: it runs the tests, deletes the binaries
// Build made and, when the tests passed, fails the process if goroutines
// are still running (goleak; opts name known long-lived goroutines of a
// library, with goleak.IgnoreTopFunction). A TestMain that has more to do
// calls Run instead.
//
//	func TestMain(m *testing.M) { testkit.Main(m) }
func Main(m *testing.M, opts ...goleak.Option) { os.Exit(Run(m, opts...)) }

// Run is Main without the exit: it returns the process's exit code.
func Run(m *testing.M, opts ...goleak.Option) int {
	code := m.Run()
	RemoveBuilt()
	if code != 0 {
		return code
	}
	if err := goleak.Find(opts...); err != nil {
		fmt.Fprintf(os.Stderr, "goleak: goroutines outlived the tests: %v\n", err)
		return 1
	}
	return 0
}
