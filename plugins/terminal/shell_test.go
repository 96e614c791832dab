package terminal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShellIsAbsolute: the helper starts the shell by its absolute path
// only (it has no PATH lookup), so shell never returns the relative path
// that a relative PATH entry yields when GODEBUG=execerrdot=0 lets
// exec.LookPath return it.
func TestShellIsAbsolute(t *testing.T) {
	// Not parallel: it changes the process's environment and directory.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "bash"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "bin")
	t.Setenv("GODEBUG", "execerrdot=0")
	if got := shell(); !filepath.IsAbs(got) {
		t.Errorf("shell() = %q, not an absolute path", got)
	}
}
