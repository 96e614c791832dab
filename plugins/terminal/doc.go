// Package terminal is the terminal tool: it runs a shell command in the
// workspace and returns the command's output and exit code.
//
// # What a call does
//
// The command runs as `bash -c COMMAND` (`/bin/sh -c` where bash is
// missing) in the workspace directory, with stdin on /dev/null, in a
// process group of its own. Its stdout and stderr are streamed to the host
// as progress events while it runs (small writes coalesced: a chunk every
// 50 ms or 32 KiB) and kept for the model as a head and a tail of 16 KiB
// each, in fixed memory, with a marker line saying how many bytes were
// left out between them. A non-zero exit is a successful call whose result
// carries the exit code; a command that outlives its timeout ends the call
// with kind timeout, and a canceled call with kind canceled, both with the
// output produced so far.
//
// # Processes: nothing outlives the command, the plugin or the host
//
// The plugin does not fork the shell itself. It starts a copy of the
// binary that hosts it, /proc/self/exe with a hidden first argument, as a
// supervisor (the "helper", package internal/helper) in a process
// group of its own; the helper becomes a child subreaper, applies the
// sandbox to itself if one is configured, and starts the shell in a new
// session (its own process group, and no controlling terminal: a command
// cannot write to or type into the person's terminal) with a parent-death
// signal (SIGKILL). The helper tears the
// command down — SIGTERM to the group and to every process re-parented to
// it, SIGKILL 500 ms later, repeated until nothing is left — when:
//
//   - the shell exits: background jobs (`server &`) and daemons that left
//     the group with setsid end with the command, so a command whose
//     grandchildren keep the output pipes open does not hang the call;
//   - the plugin asks (timeout, cancel): the plugin sends SIGTERM to the
//     helper and, should the helper not finish, kills it and the group;
//   - the plugin dies, even by SIGKILL: the helper holds one end of a
//     socket whose other end only the plugin has, sees end-of-file and
//     kills everything at once.
//
// The plugin is a child subreaper too, so a command's processes whose
// helper died are re-parented to it, and its shutdown hook
// ([sdk.OnShutdown]: the host stopped it or died) kills every command in
// flight and then all of its own children, round after round, until none
// is left.
//
// # Environment
//
// A command gets the plugin's environment, which the host already keeps
// minimal, without anything that looks like a secret or like harness
// internals: variables whose upper-cased name contains KEY, TOKEN, SECRET,
// PASSWORD, PASSWD or CREDENTIAL, or starts with HARNESS_ or PLUGIN_
// (go-plugin's own), and the go-plugin magic cookie.
//
// # Sandbox
//
// With sandbox = "workspace-write" in the plugin config (the default) the
// helper is started in new user, mount, PID, IPC and — unless "network" is
// true — network namespaces, with the plugin's uid and gid mapped to themselves.
// There, as PID 1, it makes every mount read-only, mounts the workspace
// back writable (a clone of its mount tree taken before), makes each
// protected path in the workspace ([sdk.PluginConfig.Protected]) a
// read-only bind mount and each directory between the workspace and it a
// mount point (which cannot be renamed away), mounts the plugin's private
// temp dir on /tmp, a fresh tmpfs on /dev/shm, a devpts of its own on
// /dev/pts and a procfs of the new PID namespace on /proc, and brings
// loopback up. It then confines itself with
// Landlock (writes beneath the workspace, /tmp and the everyday devices
// only; from ABI 6 also the signal and abstract-socket scopes), installs a
// seccomp filter (socket(AF_UNIX, …) fails with EACCES, io_uring with
// ENOSYS, the keyring calls with EPERM, other architectures' system calls
// kill), drops every capability
// and becomes non-dumpable before it starts the shell. The plugin process
// itself is never restricted. Teardown in the namespace is kill(-1), and
// when the helper dies the kernel kills everything in its namespace.
//
// Whether the namespaces work is probed once per plugin process. Where
// they do not (user namespaces disabled), commands run under Landlock and
// seccomp only; where Landlock is missing too (or older than ABI 3, Linux
// 6.2, the first that governs truncate), unsandboxed. Either way every
// result carries a one-line note saying what is missing. docs/security.md
// says exactly what is covered.
//
// # Hosting the plugin
//
// Because the helper is the hosting binary itself, the helper's entry is
// the init of internal/helper, which this package imports: any binary that
// links the plugin (the standalone cmd/harness-tool-terminal, the harness
// binary, which serves built-in plugins with `harness plugin serve
// terminal`, this package's test binary) diverts into the helper when
// started as one, once its own imports (the standard library's low-level
// packages and golang.org/x/sys/unix) and the packages Go's order of
// initialization puts before it are initialized (about a third of the
// harness binary's package inits, none of the harness's own), not the
// whole binary. A process that carries the helper's environment marker
// but did not divert (a misbuilt binary) gets an internal error from every
// call instead of re-executing itself.
//
// The package does not decide whether a command may run: approvals,
// allow and deny lists and the policy on redirections belong to the core.
// It runs on Linux only; elsewhere it builds and refuses to run commands.
package terminal
