package testkit

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/harness-agent/harness/internal/gopool"
)

// Main is a package's TestMain: it runs the tests, deletes the binaries
// Build made and, when the tests passed, fails the process if goroutines
// are still running (goleak; opts name known long-lived goroutines of a
// library, with goleak.IgnoreTopFunction; gopool's waiting goroutines are
// always ignored). A TestMain that has more to do calls Run instead.
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
	opts = append(opts, goleak.IgnoreTopFunction(gopool.IdleFunction))
	if err := goleak.Find(opts...); err != nil {
		fmt.Fprintf(os.Stderr, "goleak: goroutines outlived the tests: %v\n", err)
		return 1
	}
	return 0
}
