package procguard

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

// usernsChild runs as a plain user: non-dumpable, it starts a child in a new
// user namespace with WhileDumpable, then without, and reports both.
func usernsChild() int {
	if err := Harden(); err != nil {
		fmt.Println("harden:", err)
		return 3
	}
	start := func() error {
		cmd := exec.Command("/bin/true")
		uid, gid := os.Getuid(), os.Getgid()
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		}
		return cmd.Run()
	}
	with := WhileDumpable(start)
	dumpable, _ := Dumpable()
	without := start()
	fmt.Printf("with=%v dumpable-after=%v without-fails=%v\n", with, dumpable, without != nil)
	return 0
}

// TestWhileDumpableLetsAPlainUserStartAUserNamespace: a non-dumpable
// process of a plain user cannot write its child's uid_map (the terminal's
// sandbox needs it), unless it starts the child with WhileDumpable, which
// leaves it non-dumpable afterwards. As root the test runs its child as
// nobody, which is what a user's harness is.
func TestWhileDumpableLetsAPlainUserStartAUserNamespace(t *testing.T) {
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		t.Skip("no user namespaces on this kernel")
	}
	bin := os.Args[0]
	cmd := exec.Command(bin, "-test.run=^$")
	if os.Geteuid() == 0 {
		// The test binary must be executable by nobody.
		dir := t.TempDir()
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		copied := filepath.Join(dir, "procguard.test")
		testkit.CopyExecutable(t, bin, copied)
		cmd = exec.Command(copied, "-test.run=^$")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Env = append(os.Environ(), "PROCGUARD_USERNS=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	report := strings.TrimSpace(out.String())
	if strings.HasPrefix(report, "with=") && !strings.HasPrefix(report, "with=<nil>") {
		t.Skipf("a plain user cannot create user namespaces here, dumpable or not: %s", report)
	}
	if want := "with=<nil> dumpable-after=false without-fails=true"; report != want {
		t.Errorf("child reports %q, want %q", report, want)
	}
}
