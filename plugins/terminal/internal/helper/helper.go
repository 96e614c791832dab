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

// The helper starts here, during package initialization. Go initializes,
// step by step, the first package in import-path order whose imports are
// all initialized, so this one runs once the standard library's low-level
// packages and golang.org/x/sys/unix are: in the harness binary after
// about a third of the package inits (105th of 338, with 120 KB of their
// 2.1 MB of allocations), before the harness's own packages and most of
// gRPC and protobuf (a few of their leaf packages come earlier).
// path/filepath and os/exec sort late and come late (176th): the helper
// does without them (internal/archtest holds it to that). A process
// started as a helper never returns from this init; any other returns at
// once.
func init() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	os.Exit(run(os.Args[2:]))
}
