// Package testkit is the test support every package of the module shares,
// so that each thing a test needs is done one way:
//
//   - golden files: [Golden] compares output with a file under testdata/,
//     and `go test ./... -update` rewrites every golden file at once (the
//     one -update flag of the module; packages declare no flag of their own);
//   - binaries: [Build] builds a Go main package once per test process, for
//     tests that run plugins or the harness as real subprocesses;
//   - leaks: [Main], called from a package's TestMain, runs the tests,
//     deletes what [Build] built and fails the process when goroutines are
//     left over (go.uber.org/goleak);
//   - waiting: [WaitFor] and [Eventually] wait for a condition with a
//     bounded deadline, for what has no channel or event to wait on (a
//     process exiting, a file a subprocess writes); tests never sleep to
//     let something happen (internal/archtest enforces it);
//   - files: [WriteFile], [CopyTree] and [CopyExecutable] lay out workspaces
//     and plugin folders;
//   - fresh processes: [InFreshProcess] runs a function in a new process of
//     the test binary, for what a process pays once (a first compile), and
//     [AllocsInFreshProcess] counts the allocations of such a first use.
//
// It is test support only, imported by _test.go files (and bench). Like
// every internal package it imports nothing of core, plugins or cmd;
// helpers that need the core's types stay in the package that tests them.
package testkit
