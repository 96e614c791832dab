package main_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/sandboxtest"
)

// TestSecuritySandbox runs attacks through `harness run` with the default
// sandbox and terminal = "allow" (nothing asks; only the sandbox stands in
// the way), then checks that none of their side effects happened: nothing
// written or chmod-ed outside the workspace, no connection to a listener on
// the host, no sibling process killed, no API key read from harness's
// /proc entry, and harness itself still alive to finish the run. With
// permissions { network = true } the same connection goes through.
func TestSecuritySandbox(t *testing.T) {
	t.Parallel()
	outside, err := os.MkdirTemp("/var/tmp", "harness-sandbox-e2e-")
	if err != nil {
		t.Skipf("no writable directory outside the temp dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	canary := filepath.Join(outside, "canary")
	writeFile(t, canary, "canary\n")
	if err := os.Chmod(canary, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	port := l.Addr().(*net.TCPAddr).Port
	siblingPid, endSibling := sandboxtest.StartSibling(t)

	// curl, not bash's /dev/tcp: the shell policy refuses that on its own.
	// Nothing answers it: -m 2 only ends the wait for a reply that never
	// comes; whether it connected shows in the listener's backlog.
	connect := fmt.Sprintf("curl -sS -m 2 -o /dev/null http://127.0.0.1:%d/ ; echo curl exit $?", port)
	if _, err := exec.LookPath("curl"); err != nil {
		connect = "" // no way to connect here that the policy lets through
	}
	run := func(t *testing.T, permissions string, commands ...string) (map[string]map[string]any, string, string) {
		ws := filepath.Join(t.TempDir(), "ws")
		var calls []call
		for _, c := range commands {
			calls = append(calls, call{"terminal", map[string]any{"command": c}, ""})
		}
		fake, ids := scriptCalls(t, calls)
		cfg := withTools(deepseekConfig(fake.URL, "  permissions {\n    terminal = \"allow\"\n"+permissions+"  }", ""), "terminal")
		writeFile(t, filepath.Join(ws, "agent.hcl"), cfg)
		r := harness(t, ws, keyEnv, "run", "--json", "--no-input", "agent.hcl", "Break out")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		results := resultsByCall(parseEvents(t, r.stdout))
		byCommand := map[string]map[string]any{}
		for i, c := range commands {
			byCommand[c] = results[ids[i]]
			content := fmt.Sprint(results[ids[i]]["content"])
			if strings.Contains(content, "note: no sandbox") || strings.Contains(content, "note: the sandbox is partial") {
				t.Skipf("the kernel cannot sandbox here: %s", content)
			}
		}
		assertNoProcsLeft(t, ws, 2*time.Second)
		return byCommand, ws, cfg
	}

	t.Run("default", func(t *testing.T) {
		attacks := []string{
			"touch " + filepath.Join(outside, "written"),
			"chmod 777 " + canary + "; touch -d 2001-01-01 " + canary,
			fmt.Sprintf("kill -9 %d", siblingPid),
			"cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep -c TEST_DEEPSEEK_KEY; kill -9 -1",
			// The host refuses a command that names a protected path; a glob
			// hides it from the policy, and the sandbox still holds.
			"for f in *.hcl; do sed -i s/flash/evil/ $f; mv $f moved; chmod 666 $f; done",
			"touch inside && echo inside",
		}
		if connect != "" {
			attacks = append([]string{connect}, attacks...)
		}
		before, err := os.Stat(canary)
		if err != nil {
			t.Fatal(err)
		}
		results, ws, cfg := run(t, "", attacks...)
		if b, err := os.ReadFile(filepath.Join(ws, "agent.hcl")); err != nil || string(b) != cfg {
			t.Errorf("the config (a protected path) changed: %v\n%s", err, b)
		}
		if content := fmt.Sprint(results[attacks[len(attacks)-1]]["content"]); !strings.Contains(content, "inside\n") {
			t.Errorf("the control command did not run: %s", content)
		}
		for _, a := range attacks[:len(attacks)-1] {
			// Each ran (no policy stopped it): the sandbox is what held.
			content := fmt.Sprint(results[a]["content"])
			if kind := kindOf(results[a]); kind != "" || strings.Contains(content, apiKey) {
				t.Errorf("%q: kind %q, %s", a, kind, content)
			}
		}
		if _, err := os.Stat(filepath.Join(outside, "written")); err == nil {
			t.Error("a file was written outside the workspace")
		}
		after, err := os.Stat(canary)
		if err != nil || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("the canary outside changed: %v → %v (%v)", before.Mode(), after.Mode(), err)
		}
		if sandboxtest.Connected(t, l) {
			t.Error("a sandboxed command without network reached the host's listener")
		}
		if sig := endSibling(); sig != syscall.SIGTERM {
			t.Errorf("the sibling process was ended by %v, not by the test's SIGTERM", sig)
		}
	})
	t.Run("network", func(t *testing.T) {
		if connect == "" {
			t.Skip("no curl here to connect with")
		}
		run(t, "    network  = true\n", connect)
		if !sandboxtest.Connected(t, l) {
			t.Error("with network = true the command did not reach the host's listener")
		}
	})
}
