package helper

import "os"

// Arg is the hidden first argument that turns the binary hosting the
// terminal plugin into the command supervisor.
const Arg = "__harness-terminal-helper"

// Env marks the helper's environment. A process that finds it set in its
// own environment and still gets to run a command is a copy that did not
// divert into the helper (a binary built without this package's init):
// the terminal plugin refuses, so a misbuilt binary cannot re-execute
// itself over and over. The helper removes the marker before it starts the
// shell.
const Env = "HARNESS_TERMINAL_HELPER"

// The helper starts here, during package initialization, before the
// packages that most of the binary imports (gRPC, protobuf, the SDK, the
// core) are initialized: Go initializes a package as soon as all of its
// imports are, and this one imports only the standard library's low-level
// packages and golang.org/x/sys/unix. A process started as a helper never
// returns from this init; any other returns at once.
func init() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	os.Exit(run(os.Args[2:]))
}
