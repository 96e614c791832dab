// Package helper is the terminal plugin's per-command supervisor: the
// process, a copy of the binary that hosts the plugin started with the
// hidden first argument [Arg], that confines itself (namespaces, mounts,
// Landlock, seccomp, capabilities), starts the shell and tears down
// everything the command started when it ends or the plugin dies.
//
// The helper is entered from this package's init, not from a main: every
// binary that links the terminal plugin (the harness binary, which serves
// it with `harness plugin serve terminal`, and the standalone
// harness-tool-terminal) imports this package through it and diverts into
// the helper before most of the binary is initialized. So the package
// imports nothing but the standard library's low-level packages and
// golang.org/x/sys/unix, not path/filepath nor os/exec (internal/archtest
// holds it to that): every package it depends on, and every package that
// Go's order of initialization puts before it, is initialized in each
// command's helper, so a heavier import would be paid for by every
// command. The helper itself is started as a copy of the binary, by the
// plugin: it is never entered from a main.
//
// It also holds what the plugin and the helper must agree on: the
// Landlock ABI checks, where the seccomp filter is built, the /proc
// reading of both teardowns, and the workspace path comparisons.
package helper
