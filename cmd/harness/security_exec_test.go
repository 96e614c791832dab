package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// TestSecurityRestartRunsWhatWasVerified is issue 12's attack on the plugin
// host: while a run goes on, the file of a plugin is replaced by a script
// that creates a canary, and the plugin is killed, so that the host starts
// it again. The host restarts it from what it opened (the harness binary,
// for built-in plugins) or verified (a third-party plugin) at first: the
// next call is answered and the canary never appears.
func TestSecurityRestartRunsWhatWasVerified(t *testing.T) {
	t.Parallel()
	t.Run("builtin", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		bin := filepath.Join(dir, "bin", "harness")
		testkit.CopyExecutable(t, harnessBin, bin)
		writeFile(t, filepath.Join(dir, "notes.md"), "the notes\n")
		read := func(id string) fakedeepseek.Turn { return readCall(id, "notes.md") }
		restartAfterSwap(t, dir, bin, bin, "plugin serve --shared", "", read) // read_file runs in the shared built-in process
	})
	t.Run("third_party", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		plugin := filepath.Join(dir, "bin", "harness-tool-jsonquery")
		jsonquery(t, plugin)
		query := func(id string) fakedeepseek.Turn {
			return fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: id, Name: "json_query", Arguments: `{"document":"{\"a\":\"the notes\"}","path":"a"}`}}}
		}
		block := "\nplugin \"jsonquery\" {\n  path = \"./bin/harness-tool-jsonquery\"\n}\n"
		restartAfterSwap(t, dir, harnessBin, plugin, "harness-tool-jsonquery", block, query)
	})
}

// restartAfterSwap runs harness from bin in dir: the model calls the tool
// (call first), then a terminal command that waits on a FIFO; meanwhile the
// test replaces target with a canary script and kills the plugin whose
// command line holds marker; then the model calls the tool again.
func restartAfterSwap(t *testing.T, dir, bin, target, marker, more string, tool func(id string) fakedeepseek.Turn) {
	release := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(release, 0o644); err != nil {
		t.Fatal(err)
	}
	first := tool("call_first")
	wait := terminalCall("call_wait", "cat release")
	fake := fakedeepseek.New(t, fakedeepseek.Scripted(first), fakedeepseek.Scripted(wait))
	permissions := "  permissions {\n    allow_commands = [\"cat *\"]\n  }"
	cfg := withTools(deepseekConfig(fake.URL, permissions, more), first.ToolCalls[0].Name, "terminal")
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	if more != "" {
		if r := harness(t, dir, nil, "plugins", "lock", "agent.hcl"); r.code != 0 {
			t.Fatalf("lock: %+v", r)
		}
	}
	live := startLiveBin(t, bin, dir, keyEnv, "agent.hcl", "Read the notes twice")
	findProc(t, dir, 10*time.Second, "cat release")
	victim := findProc(t, dir, 10*time.Second, marker)

	canary := filepath.Join(dir, "canary")
	evil := filepath.Join(dir, "bin", "evil")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+canary+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(evil, target); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(victim.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The next call is made once the victim has exited: a call sent to a
	// process that is still dying fails with process_exit, as it should,
	// and only the one after it would show the restart.
	waitDead(t, victim.pid, 10*time.Second)
	fake.Enqueue(fakedeepseek.Scripted(tool("call_again")), answer)
	// Release the command waiting on the FIFO if it still waits: when the
	// victim is the shared built-in process, which runs the terminal too,
	// its death has ended the command (and an open for writing with no
	// reader fails at once instead of blocking).
	if f, err := os.OpenFile(release, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		_, _ = f.WriteString("go\n")
		_ = f.Close()
	}
	if code := live.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, live.stderrText())
	}
	results := resultsByCall(live.events(t))
	again := results["call_again"]
	if kindOf(again) != "" || !strings.Contains(fmt.Sprint(again["content"]), "the notes") {
		t.Errorf("the call after the swap: %v", again)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("the swapped file ran: the canary exists")
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), canary) {
		t.Fatal("the file was not swapped: the test proves nothing")
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}
