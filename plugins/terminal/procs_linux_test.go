package terminal

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/plugins/terminal/internal/helper"
)

// sleepMarker returns a unique duration argument for sleep, to find the
// process again in /proc: "sleep 300.123456" is nobody else's.
func sleepMarker() string {
	return fmt.Sprintf("300.%06d", rand.IntN(1_000_000))
}

// spawnSleepers is a shell snippet that starts `sleep MARKER` in the
// background for each prefix ("" or e.g. "setsid "), waits until each runs
// (the fork alone is not enough), then prints "started PGID" with the
// command's process group (the shell leads it).
func spawnSleepers(marker string, prefixes ...string) string {
	var b strings.Builder
	for _, p := range prefixes {
		// Until exec the child's command line is the shell's, which
		// mentions the marker too: wait for sleep's own.
		fmt.Fprintf(&b, `%ssleep %s & until [ "$(tr '\0' ' ' </proc/$!/cmdline 2>/dev/null)" = "sleep %s " ]; do sleep 0.01; done; `, p, marker, marker)
	}
	b.WriteString("echo started $$")
	return b.String()
}

// startedGroup returns the PGID printed by spawnSleepers' snippet.
func startedGroup(t *testing.T, output string) int {
	t.Helper()
	_, rest, ok := strings.Cut(output, "started ")
	if !ok {
		t.Fatalf("no started line in %q", output)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
	if err != nil {
		t.Fatalf("started line in %q: %v", output, err)
	}
	return pgid
}

// sleepers lists the live `sleep MARKER` processes of the system.
func sleepers(marker string) []helper.Proc {
	var out []helper.Proc
	procs, _ := helper.ListProcs()
	for _, p := range procs {
		if p.Zombie() {
			continue
		}
		argv := cmdline(p.PID)
		if len(argv) == 2 && filepath.Base(argv[0]) == "sleep" && argv[1] == marker {
			out = append(out, p)
		}
	}
	return out
}

// withMarker lists the live processes whose command line mentions marker
// (sleepers, and the shells and helpers that run them).
func withMarker(marker string) []helper.Proc {
	var out []helper.Proc
	procs, _ := helper.ListProcs()
	for _, p := range procs {
		if p.Zombie() || p.PID == os.Getpid() {
			continue
		}
		if strings.Contains(strings.Join(cmdline(p.PID), " "), marker) {
			out = append(out, p)
		}
	}
	return out
}

// inGroup lists the processes (zombies too) of process group pgid.
func inGroup(pgid int) []helper.Proc {
	var out []helper.Proc
	procs, _ := helper.ListProcs()
	for _, p := range procs {
		if p.PGID == pgid {
			out = append(out, p)
		}
	}
	return out
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(string(bytes.TrimSuffix(b, []byte{0})), "\x00")
}

// waitFor polls cond until it holds or limit passes. The limit bounds how
// long a broken implementation can hang the test; it is not a timing claim.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("still waiting after %v for %s", limit, what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// assertGone fails when a process of the command is still there.
func assertGone(t *testing.T, marker string, pgid int) {
	t.Helper()
	if left := withMarker(marker); len(left) > 0 {
		t.Errorf("processes of the command survived: %+v", describe(left))
	}
	if pgid > 0 {
		if left := inGroup(pgid); len(left) > 0 {
			t.Errorf("process group %d survived: %+v", pgid, describe(left))
		}
	}
	self := os.Getpid()
	procs, _ := helper.ListProcs()
	for _, p := range procs {
		if p.PPID == self && strings.Contains(strings.Join(cmdline(p.PID), " "), marker) {
			t.Errorf("a child of the test process survived: %+v", describe([]helper.Proc{p}))
		}
	}
}

func describe(ps []helper.Proc) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, fmt.Sprintf("pid %d ppid %d pgid %d state %c %q", p.PID, p.PPID, p.PGID, p.State, cmdline(p.PID)))
	}
	return out
}
