package sdk

import (
	"os"
	"runtime"
	"testing"
)

// TestOneProcUnlessSet: a provider process runs on one P, unless the
// GOMAXPROCS environment variable chooses.
func TestOneProcUnlessSet(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOMAXPROCS", "2")
	runtime.GOMAXPROCS(2)
	oneProcUnlessSet()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("with GOMAXPROCS=2 in the environment, GOMAXPROCS is %d", got)
	}
	if err := os.Unsetenv("GOMAXPROCS"); err != nil {
		t.Fatal(err)
	}
	oneProcUnlessSet()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("without GOMAXPROCS in the environment, GOMAXPROCS is %d, want 1", got)
	}
}
