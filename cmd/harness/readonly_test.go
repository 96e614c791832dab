package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// TestFaultReadOnlyStoreIsReadable: a store on a read-only mount (root:
// a read-only bind mount in a private mount namespace, since root ignores
// file modes) or in a folder without write permission (everyone else) is
// opened read-only: sessions list and sessions events work, and a run is
// refused with a message that says the store is read-only.
func TestFaultReadOnlyStoreIsReadable(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t, answer)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), deepseekConfig(fake.URL, "", ""))
	first := harness(t, dir, keyEnv, "run", "--json", "--no-input", "agent.hcl", "hi")
	if first.code != 0 {
		t.Fatalf("run: exit %d\n%s", first.code, first.stderr)
	}
	id := parseEvents(t, first.stdout)[0].Session
	state := stateDir(t)

	// The same three commands either way; the script prints a marker
	// between their outputs.
	script := `"$H" sessions list; echo "== $?"; "$H" sessions events "$ID"; echo "== $?"; "$H" run --no-input agent.hcl again; echo "== $?"`
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("root ignores file modes, and there is no unshare for a read-only bind mount")
		}
		cmd = exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
			`mount --bind "$S" "$S" && mount -o remount,ro,bind "$S" || exit 97; `+script)
	} else {
		if err := os.Chmod(state, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(state, 0o700) })
		cmd = exec.Command("sh", "-c", script)
	}
	cmd.Dir = dir
	cmd.Env = testEnv(t, append(keyEnv, "H="+harnessBin, "S="+state, "ID="+id))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 97 {
		t.Skipf("a read-only bind mount is not possible here:\n%s", out)
	}
	parts := strings.Split(string(out), "== ")
	if len(parts) != 4 {
		t.Fatalf("script output:\n%s", out)
	}
	if !strings.HasPrefix(parts[1], "0") || !strings.Contains(parts[0], id) || !strings.Contains(parts[0], "completed") {
		t.Errorf("sessions list of the read-only store:\n%s", parts[0])
	}
	if !strings.HasPrefix(parts[2], "0") || !strings.Contains(parts[1], "session.ended") {
		t.Errorf("sessions events of the read-only store:\n%s", parts[1])
	}
	if strings.HasPrefix(parts[3], "0") || !strings.Contains(parts[2], "read-only") {
		t.Errorf("a run on the read-only store should fail saying so:\n%s", parts[2])
	}
}
