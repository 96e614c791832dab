package procguard

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

const secretEnv = "PROCGUARD_TEST_SECRET=sk-procguard-5e1f"

// TestMain lets the test binary run as the child of TestHardenedChild: it
// wipes its environment block, hardens itself, reports, and waits for its
// input to close.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("PROCGUARD_CHILD") != "":
		os.Exit(child())
	case os.Getenv("PROCGUARD_USERNS") != "":
		os.Exit(usernsChild())
	}
	testkit.Main(m)
}

func child() int {
	if err := WipeEnvironBlock(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if err := Harden(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	dumpable, err := Dumpable()
	kept := strings.Contains(strings.Join(os.Environ(), "\n"), secretEnv)
	fmt.Printf("dumpable=%v err=%v environ-kept=%v\n", dumpable, err, kept)
	_, _ = os.Stdin.Read(make([]byte, 1))
	return 0
}

// TestHardenedChild starts a child that wipes its environment block and
// marks itself non-dumpable, then reads its /proc entries as another process
// of the user would: the environment shows no secret (root reads the file,
// a plain user is refused), while the child still has its environment.
func TestHardenedChild(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROCGUARD_CHILD=1", secretEnv)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v\n%s", err, stderr.String())
		}
	}()
	report, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child did not report: %v\n%s", err, stderr.String())
	}
	if want := "dumpable=false err=<nil> environ-kept=true\n"; report != want {
		t.Errorf("child reports %q, want %q", report, want)
	}
	path := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ"
	environ, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Contains(environ, []byte("sk-procguard")):
		t.Errorf("%s still shows the secret", path)
	case err == nil && len(bytes.Trim(environ, "\x00")) > 0:
		t.Errorf("%s is not wiped: %q", path, environ)
	case err == nil && os.Geteuid() != 0:
		t.Errorf("a plain user read %s of a non-dumpable process", path)
	case err != nil && os.Geteuid() == 0:
		t.Errorf("root could not read %s: %v", path, err)
	}
}
