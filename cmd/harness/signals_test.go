package main_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// TestFaultSignalsEndTheRunAsInterrupted: SIGHUP (the terminal closed)
// and SIGTERM end a run the way Ctrl-C does, with 128 + the signal's
// number: the session is closed as interrupted, never left running, and
// every process is gone.
func TestFaultSignalsEndTheRunAsInterrupted(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		sig    syscall.Signal
		code   int
		marker string
	}{
		{"sighup", syscall.SIGHUP, 129, "42.11"},
		{"sigterm", syscall.SIGTERM, 143, "42.12"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			live, dir := startSleeper(t, tt.marker)
			id := live.events(t)[0].Session
			if err := live.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			if code := live.wait(t); code != tt.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tt.code, live.stderrText())
			}
			evs := live.events(t)
			if got := endStatus(evs); got != "interrupted" || evs[len(evs)-1].Type != "session.ended" {
				t.Errorf("session ended %q (last event %s), want interrupted", got, evs[len(evs)-1].Type)
			}
			assertNoProcsLeft(t, dir, 2*time.Second)
			if got := sessionStatus(t, dir, id); got != "interrupted" {
				t.Errorf("sessions list says %q, want interrupted", got)
			}
		})
	}
}

// TestFaultClosedStdoutEndsTheRunCleanly: `run --json … | head -1` closes
// the run's standard output after one line. The run does not die of
// SIGPIPE: it stops as interrupted, writes session.ended to the store and
// exits 141 (128 + SIGPIPE) on its own.
func TestFaultClosedStdoutEndsTheRunCleanly(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t)
	fake.Repeat(fakedeepseek.Endless("more and more text ", time.Millisecond))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), deepseekConfig(fake.URL, "", ""))
	cmd := exec.Command(harnessBin, "run", "--json", "--no-input", "agent.hcl", "Talk")
	cmd.Dir = dir
	cmd.Env = testEnv(t, keyEnv)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, `"session.started"`) {
		t.Fatalf("first line %q, %v", line, err)
	}
	id := parseEvents(t, line)[0].Session
	out.Close() // what head does after its line
	err = cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("harness died of %v; want a clean exit\nstderr:\n%s", ws.Signal(), stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 141 {
		t.Errorf("exit %d (%v), want 141\nstderr:\n%s", code, err, stderr.String())
	}
	evs := storedEvents(t, dir, id)
	if got := endStatus(evs); got != "interrupted" || evs[len(evs)-1].Type != "session.ended" {
		t.Errorf("stored session ended %q (last event %s), want interrupted", got, evs[len(evs)-1].Type)
	}
	if got := sessionStatus(t, dir, id); got != "interrupted" {
		t.Errorf("sessions list says %q, want interrupted", got)
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}

// TestFaultSIGINTDuringAHangingPluginStart: a third-party plugin that
// never completes its handshake (it sleeps for minutes) does not hold a
// Ctrl-C up until the start timeout: the run exits 130, having created no
// session, and the plugin is gone.
func TestFaultSIGINTDuringAHangingPluginStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := []byte("#!/bin/sh\nexec sleep 300.37\n")
	writeFile(t, filepath.Join(dir, "bin", "harness-tool-hang"), string(script))
	if err := os.Chmod(filepath.Join(dir, "bin", "harness-tool-hang"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(script)
	fake := fakedeepseek.New(t)
	fake.Repeat(answer)
	cfg := withTools(deepseekConfig(fake.URL, "", "\nplugin \"hang\" {\n  path   = \"./bin/harness-tool-hang\"\n  sha256 = \""+hex.EncodeToString(sum[:])+"\"\n}\n"), "read_file", "hang_tool")
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	live := startLive(t, dir, keyEnv, "agent.hcl", "hi")
	findProc(t, dir, 10*time.Second, "sleep 300.37")
	if err := live.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// Had harness waited for the start attempt, it would exit 1 (the
	// start timed out) instead.
	if code := live.wait(t); code != 130 {
		t.Errorf("exit %d, want 130\nstderr:\n%s", code, live.stderrText())
	}
	if n := len(live.lines); n != 0 {
		t.Errorf("%d events printed; a run stopped before its session exists has none", n)
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}

// TestFaultSIGINTAtAnyMomentExits130: SIGINT as soon as the first plugin
// process shows (providers and tools starting, models being listed), at
// session.started and during the first request: each run exits 130 with
// every process gone. The server never answers, so no run can end another
// way.
func TestFaultSIGINTAtAnyMomentExits130(t *testing.T) {
	t.Parallel()
	for _, moment := range []string{"plugin start", "session.started", "llm.request"} {
		t.Run(strings.ReplaceAll(moment, " ", "_"), func(t *testing.T) {
			t.Parallel()
			fake := fakedeepseek.New(t)
			fake.Repeat(fakedeepseek.KeepAliveStall(100 * time.Millisecond))
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "agent.hcl"), deepseekConfig(fake.URL, "", ""))
			live := startLive(t, dir, keyEnv, "agent.hcl", "hi")
			if moment == "plugin start" {
				findProc(t, dir, 10*time.Second, "plugin serve")
			} else {
				live.until(t, moment)
			}
			if err := live.cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if code := live.wait(t); code != 130 {
				t.Errorf("exit %d, want 130\nstderr:\n%s", code, live.stderrText())
			}
			if len(live.lines) > 0 {
				if evs := live.events(t); evs[0].Type != "session.started" || endStatus(evs) != "interrupted" {
					t.Errorf("events: first %s, ended %q; want session.started first and interrupted", evs[0].Type, endStatus(evs))
				}
			}
			assertNoProcsLeft(t, dir, 2*time.Second)
		})
	}
}
