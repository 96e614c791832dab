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
