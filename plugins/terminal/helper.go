package terminal

import (
	"os"
	"sync/atomic"
)

// helperArg is the hidden first argument that turns the binary hosting
// the plugin into the command supervisor (see MaybeRunSandboxHelper).
const helperArg = "__harness-terminal-helper"

// helperEnv marks the helper's environment. A process that finds it set
// in its own environment and still gets to run a command is a copy whose
// main did not divert into the helper: it refuses, so a misbuilt binary
// cannot re-execute itself over and over. The helper removes the marker
// before it starts the shell.
const helperEnv = "HARNESS_TERMINAL_HELPER"

// helperReady records that main called MaybeRunSandboxHelper. The helper
// is a copy of this binary: without the call, the copy would run main
// again (for a plugin binary: serve another plugin, or worse) instead of
// the command, so the tool refuses to run commands until it was made.
var helperReady atomic.Bool

// MaybeRunSandboxHelper runs the terminal's command supervisor and exits
// when the process was started as one; otherwise it returns at once.
//
// The terminal plugin runs each command through a copy of the binary that
// hosts it (/proc/self/exe): that supervisor applies the Landlock sandbox
// to itself before it starts the shell, so the plugin itself is never
// restricted, and it kills everything the command started when the
// command ends or when the plugin dies, even by SIGKILL. Every main that
// serves this plugin — the standalone harness-tool-terminal and the
// harness binary, which serves built-in plugins — must call
// MaybeRunSandboxHelper first, before flags are parsed or anything else
// starts.
func MaybeRunSandboxHelper() {
	if len(os.Args) < 2 || os.Args[1] != helperArg {
		helperReady.Store(true)
		return
	}
	os.Exit(runHelper(os.Args[2:]))
}
