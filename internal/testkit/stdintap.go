package testkit

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

//go:embed stdintap.js
var stdinTapJS []byte

// StdinTap lets a test see what a Node.js program (an MCP server) has read
// on its stdin, to wait until a request has reached it: start the program
// with env added to its environment, then wait for arrived(s), which
// reports whether what it read so far contains s. The program is
// unchanged otherwise: the same process, arguments and stdin.
func StdinTap(tb testing.TB) (env map[string]string, arrived func(s string) bool) {
	tb.Helper()
	dir := tb.TempDir()
	js, log := filepath.Join(dir, "stdintap.js"), filepath.Join(dir, "stdin")
	if err := os.WriteFile(js, stdinTapJS, 0o644); err != nil {
		tb.Fatal(err)
	}
	env = map[string]string{"NODE_OPTIONS": "--require " + js, "STDIN_TAP": log}
	return env, func(s string) bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), s)
	}
}
