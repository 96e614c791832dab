package testkit

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the tests produce")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Golden compares got with the golden file at path (relative to the test's
// folder, under testdata/) and fails the test with a diff when they differ.
// With -update it writes got to path instead, creating its folder.
func Golden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		tb.Errorf("output differs from %s (-want +got; go test -update refreshes it):\n%s", path, diff)
	}
}
