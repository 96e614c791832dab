package main_test

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// A process that never validates a schema (every plugin process, `version`)
// must not compile the JSON Schema metaschemas at package init: upstream
// jsonschema/v6 did, ~21,000 allocations and 2–10 ms per process; the
// patched copy in third_party/jsonschema compiles them on first use.
func TestPluginProcessPaysNoSchemaInit(t *testing.T) {
	t.Parallel()
	line := regexp.MustCompile(`init github\.com/santhosh-tekuri/jsonschema/v6 @[^,]+, [^,]+ clock, (\d+) bytes, (\d+) allocs`)
	for _, args := range [][]string{{"plugin", "serve", "readfile"}, {"version"}} {
		cmd := exec.Command(harnessBin, args...)
		cmd.Env = append(testEnv(t, nil), "GODEBUG=inittrace=1")
		out, _ := cmd.CombinedOutput() // plugin serve exits 1 without the go-plugin handshake
		m := line.FindSubmatch(out)
		if m == nil {
			t.Fatalf("%v: no inittrace line for jsonschema/v6 in:\n%s", args, out)
		}
		allocs, _ := strconv.Atoi(string(m[2]))
		if allocs > 1000 {
			t.Errorf("%v: jsonschema/v6 init made %d allocations (%s bytes): the metaschemas are compiled at init again", args, allocs, m[1])
		}
	}
}

// Every process of a run, each plugin process too, initializes every
// package of this binary. These packages build their tables, schemas and
// regular expressions on first use (sync.OnceValue), not at init, where
// they cost each process 30–110 allocations apiece; the bounds leave room
// for small constants, not for a table, schema or regexp built at init.
func TestOwnPackagesInitLazily(t *testing.T) {
	t.Parallel()
	bounds := map[string]int{
		"main": 20,
		"github.com/harness-agent/harness/core/shellpolicy": 30, // 2 per sync.OnceValue
		"github.com/harness-agent/harness/core/config":      15,
		"github.com/harness-agent/harness/plugins/terminal": 15,
	}
	cmd := exec.Command(harnessBin, "version")
	cmd.Env = append(testEnv(t, nil), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("harness version: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @[^,]+, [^,]+ clock, \d+ bytes, (\d+) allocs$`)
	seen := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		bound, ok := bounds[m[1]]
		if !ok {
			continue
		}
		seen[m[1]] = true
		if allocs, _ := strconv.Atoi(m[2]); allocs > bound {
			t.Errorf("init of %s made %d allocations (at most %d): something is built at package init again", m[1], allocs, bound)
		}
	}
	for pkg := range bounds {
		if !seen[pkg] {
			t.Errorf("no inittrace line for %s in:\n%s", pkg, out)
		}
	}
}
