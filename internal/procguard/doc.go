// Package procguard keeps what a harness process holds out of reach of the
// other processes of the same user: the commands the model runs above all.
//
// Harden marks the calling process non-dumpable, so that a process of the
// same user without CAP_SYS_PTRACE can neither read its /proc/PID/environ,
// /proc/PID/mem, /proc/PID/fd nor attach to it with ptrace, and no core dump
// of it is written. WipeEnvironBlock overwrites the environment block the
// kernel shows in /proc/PID/environ: it keeps the environment the process
// was started with (os.Unsetenv does not change it), and root reads it
// whatever the dumpable flag says. The Go runtime copied the environment at
// start-up, so os.Getenv and os.Environ are not affected.
//
// What it does not do: a process of root (or with CAP_SYS_PTRACE) can still
// read the memory of these processes, API keys included. Only the terminal
// sandbox, which gives commands a PID namespace of their own, keeps those
// out of reach (docs/security.md).
package procguard
