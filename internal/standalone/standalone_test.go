// Package standalone proves the repository stands alone: a fresh clone, with
// nothing beside it (no shared folder next to it), builds and passes the tests that read
// recorded fixtures, offline.
package standalone

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// childEnv marks the go test run inside the clone, so that a clone never
// clones again (the packages it runs do not include this one, but a future
// edit to the list must not turn this into a fork bomb).
const childEnv = "HARNESS_STANDALONE_CLONE"

// fixturePackages are the packages whose tests read testdata/fixtures.
var fixturePackages = []string{"./sdk/sdktest/fakedeepseek", "./plugins/provider-deepseek/..."}

func TestFreshCloneRunsFixtureTests(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("already inside a standalone clone; not cloning again")
	}
	if testing.Short() {
		t.Skip("-short: skipping the fresh-clone test (it builds the fixture packages in a clone)")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	goBin := filepath.Join(runtimeGOROOT(t), "bin", "go")

	top := strings.TrimSpace(run(t, ".", nil, git, "rev-parse", "--show-toplevel"))
	// The clone sits alone in its own directory: nothing beside it.
	clone := filepath.Join(t.TempDir(), "harness")
	run(t, ".", nil, git, "clone", "--quiet", "--no-hardlinks", top, clone)
	if entries, err := os.ReadDir(filepath.Dir(clone)); err != nil || len(entries) != 1 {
		t.Fatalf("the clone's parent directory should hold the clone only: %v %v", entries, err)
	}

	// No file of the project refers to the shared folder beside the
	// checkout that the fixtures were once read from (the pattern is a
	// regular expression, so this file does not match itself).
	grep := exec.Command(git, "grep", "-n", "-I", "-E", `[.][.]/shared`)
	grep.Dir = clone
	if out, err := grep.Output(); err == nil {
		t.Errorf("files of the clone refer to the shared folder beside the checkout:\n%s", out)
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("git grep: %v", err)
	}

	// Offline (GOPROXY=off, GOFLAGS=-mod=readonly): the module cache and the
	// build cache of this machine are reused, so this is as fast as a rebuild.
	env := append(os.Environ(), childEnv+"=1", "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOWORK=off")
	args := append([]string{"test", "-count=1"}, fixturePackages...)
	out := run(t, clone, env, goBin, args...)
	t.Logf("go test in the clone:\n%s", out)
}

func runtimeGOROOT(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go is not on PATH: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}
