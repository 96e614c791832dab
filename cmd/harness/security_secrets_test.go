package main_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// TestSecuritySecretsOutOfReach gives the run an API key through env() and
// lets the model read every process's environment and command line with an
// allowed `cat`: first /proc/*/…, then, by number, the harness process and
// each of its plugins. Neither the model's requests nor the events hold the
// key, with the sandbox off (as root, in CI, who may read any process's
// /proc files) and with the default sandbox (its own PID namespace: the
// host's processes are not there at all). The key did reach the provider.
func TestSecuritySecretsOutOfReach(t *testing.T) {
	t.Parallel()
	for name, sandboxOff := range map[string]bool{"sandbox_off": true, "sandbox_default": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			secretsOutOfReach(t, sandboxOff)
		})
	}
}

func secretsOutOfReach(t *testing.T, sandboxOff bool) {
	// A key of this test alone: other tests' runs hold apiKey.
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	key := "sk-out-of-reach-" + hex.EncodeToString(nonce[:])

	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(release, 0o644); err != nil {
		t.Fatal(err)
	}
	// The first command waits on the FIFO, so that the test can name the
	// run's processes in the next one before the model asks for it.
	fake := fakedeepseek.New(t, fakedeepseek.Scripted(terminalCall("call_wait", "cat release")))
	permissions := "  permissions {\n    terminal       = \"ask\"\n    allow_commands = [\"cat *\"]"
	if sandboxOff {
		permissions += "\n    sandbox        = \"off\""
	}
	permissions += "\n  }"
	writeFile(t, filepath.Join(dir, "agent.hcl"), withTools(deepseekConfig(fake.URL, permissions, ""), "terminal"))
	live := startLive(t, dir, []string{"TEST_DEEPSEEK_KEY=" + key}, "agent.hcl", "Read the environments")
	live.until(t, "tool.call")
	findProc(t, dir, 10*time.Second, "cat release")

	host := live.cmd.Process.Pid
	pids := []int{host}
	for _, p := range procsUnder(dir) {
		if strings.Contains(p.cmdline, "plugin serve") {
			pids = append(pids, p.pid)
		}
	}
	if len(pids) < 3 {
		t.Fatalf("found %v, want harness, the provider and the terminal", pids)
	}
	var targeted []string
	for _, pid := range pids {
		targeted = append(targeted, fmt.Sprintf("/proc/%d/environ /proc/%d/cmdline", pid, pid))
	}
	all, run := terminalCall("call_all", "cat /proc/*/environ /proc/*/cmdline"), terminalCall("call_run", "cat "+strings.Join(targeted, " "))
	fake.Enqueue(fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: append(all.ToolCalls, run.ToolCalls...)}), answer)

	// What any process of the user could read right now, the test being one.
	for _, pid := range pids {
		for _, file := range []string{"environ", "cmdline"} {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
			if err == nil && bytes.Contains(b, []byte(key)) {
				t.Errorf("/proc/%d/%s holds the key", pid, file)
			}
		}
	}
	if err := os.WriteFile(release, []byte("go\n"), 0); err != nil {
		t.Fatal(err)
	}
	if code := live.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, live.stderrText())
	}

	reqs := fake.Requests()
	if len(reqs) == 0 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
		t.Fatal("the key did not reach the provider")
	}
	for i, r := range reqs {
		if bytes.Contains(r.Raw, []byte(key)) || bytes.Contains(r.Raw, []byte(key[len("sk-out-of-reach-"):])) {
			t.Errorf("request %d to the model holds the key", i)
		}
	}
	events := strings.Join(live.lines, "\n")
	if strings.Contains(events, key) {
		t.Error("the events hold the key")
	}
	results := resultsByCall(live.events(t))
	read := fmt.Sprint(results["call_run"]["content"])
	// The command did read what it could: with the sandbox off the host's
	// processes are there (their command lines say so); in the sandbox
	// they are not.
	shown := strings.Contains(read, "plugin\x00serve")
	if sandboxOff && !shown {
		t.Errorf("with the sandbox off the command did not read the plugins' command lines: %q", read)
	}
	if !sandboxOff && shown {
		t.Errorf("in the sandbox the command saw the host's processes: %q", read)
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}
