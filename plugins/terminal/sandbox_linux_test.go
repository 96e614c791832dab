package terminal

import (
	"testing"
)

// requireSandbox skips a test of the full sandbox where this kernel cannot
// set it up, saying what is missing.
func requireSandbox(t testing.TB) {
	t.Helper()
	tmp, err := privateTemp()
	if err != nil {
		t.Fatal(err)
	}
	if err := namespaceSupport(t.TempDir(), tmp); err != nil {
		t.Skipf("no namespaced sandbox on this kernel: %v", err)
	}
	if err := sandboxAvailable(); err != nil {
		t.Skipf("no Landlock sandbox on this kernel: %v", err)
	}
}
