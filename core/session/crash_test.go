package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The crash test re-executes this test binary as a writer process (the
// TestHelperWriter "test") and kills it with SIGKILL in the middle of its
// appends. SIGKILL kills the process, not the machine: the kernel still
// writes back what the process handed it, so this proves the commit
// protocol (nothing is reported before it is committed, and a torn write
// never corrupts the store). The store runs with synchronous=NORMAL, which
// keeps that promise for process crashes, not for a power loss.
const (
	helperEnv        = "HARNESS_SESSION_TEST_WRITER_DB"
	helperSessionEnv = "HARNESS_SESSION_TEST_WRITER_SESSION"
	helperMaxAppends = 20000 // bounds an orphaned writer
)

// crashData is the data of the event with sequence number n; its size varies
// so that some events span several pages.
func crashData(n int64) map[string]any {
	reps := int(n%50) + 1
	if n%97 == 0 {
		reps = 3000
	}
	return map[string]any{"n": n, "text": strings.Repeat(fmt.Sprintf("%d,", n), reps)}
}

func TestHelperWriter(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("the writer process of TestCrashSafety")
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	s, err := OpenFile(path)
	if IsPostgresURL(path) {
		s, err = Open(path)
	}
	if err != nil {
		fail(err)
	}
	id := os.Getenv(helperSessionEnv)
	evs, err := s.Events(ctx, id, 0)
	if err != nil {
		fail(err)
	}
	next := int64(len(evs)) + 1
	for n := next; n < next+helperMaxAppends; n++ {
		ev, err := s.Append(ctx, id, "test.tick", crashData(n))
		if err != nil {
			fail(err)
		}
		if ev.Seq != n {
			fail(fmt.Errorf("appended seq %d, want %d", ev.Seq, n))
		}
		// Printed only once Append has returned, i.e. committed.
		fmt.Printf("committed %d\n", ev.Seq)
	}
	fail(fmt.Errorf("wrote %d events without being killed", helperMaxAppends))
}

func TestCrashSafety(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(tempStore(t))
	if err != nil {
		t.Fatal(err)
	}
	info := newSession(t, s)
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	stored := 0 // events in the store before the current writer started
	for _, killAfter := range []int{1, 137, 400} {
		printed := runWriterAndKill(t, path, info.ID, killAfter)
		for i, seq := range printed {
			if seq != int64(stored+i+1) {
				t.Fatalf("writer printed seq %d as its line %d, want %d", seq, i+1, stored+i+1)
			}
		}

		s, err := OpenFile(path)
		if err != nil {
			t.Fatalf("reopen after kill at %d: %v", killAfter, err)
		}
		evs, err := s.Events(ctx, info.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range evs {
			want, _ := json.Marshal(crashData(ev.Seq))
			if ev.Seq != int64(i+1) || ev.Type != "test.tick" || !bytes.Equal(ev.Data, want) {
				t.Fatalf("after kill at %d: event %d is seq %d type %q data %.60s…; want seq %d, intact data",
					killAfter, i, ev.Seq, ev.Type, ev.Data, i+1)
			}
		}
		if last := stored + len(printed); len(evs) < last {
			t.Fatalf("after kill at %d: the writer printed seq %d as committed, the store has %d events", killAfter, last, len(evs))
		}
		var check string
		if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Fatalf("integrity_check = %q, %v", check, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// An event committed but not yet printed when the kill came is fine.
		t.Logf("kill after %d lines: %d printed, %d committed", killAfter, len(printed), len(evs)-stored)
		stored = len(evs)
	}
}

// runWriterAndKill starts the writer, SIGKILLs it once it has printed
// killAfter committed seqs, and returns every seq it printed.
func runWriterAndKill(t *testing.T, path, session string, killAfter int) []int64 {
	t.Helper()
	printed, cmd, stderr := runWriter(t, path, session, killAfter, func(cmd *exec.Cmd) error { return cmd.Process.Kill() })
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("writer did not die of SIGKILL: %s\n%s", cmd.ProcessState, stderr)
	}
	return printed
}

// runWriter starts the writer, calls stop once it has printed after
// committed seqs, waits for it to exit, and returns every seq it printed
// and what it wrote to stderr.
func runWriter(t *testing.T, path, session string, after int, stop func(*exec.Cmd) error) ([]int64, *exec.Cmd, string) {
	t.Helper()
	killAfter := after
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path, helperSessionEnv+"="+session)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	var printed []int64
	collect := func(line string) {
		var seq int64
		if _, err := fmt.Sscanf(line, "committed %d", &seq); err == nil {
			printed = append(printed, seq)
		}
	}
	timeout := time.After(2 * time.Minute)
	for len(printed) < killAfter {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("writer exited after %d lines: %s\n%s", len(printed), cmd.ProcessState, stderr.String())
			}
			collect(line)
		case <-timeout:
			_ = cmd.Process.Kill()
			for range lines {
			}
			_ = cmd.Wait()
			t.Fatalf("writer printed only %d lines in 2 minutes\n%s", len(printed), stderr.String())
		}
	}
	if err := stop(cmd); err != nil {
		t.Fatal(err)
	}
	// Lines already in the pipe were printed before the kill: they count.
	for line := range lines {
		collect(line)
	}
	_ = cmd.Wait()
	return printed, cmd, stderr.String()
}
