// Package gopool runs short-lived functions on goroutines that outlive
// them, so that a stack grown by one function serves the next.
//
// A new goroutine starts with a 2 KiB stack, and one that goes deep (a
// SQLite commit through modernc.org/sqlite, a gRPC send, an HTTP round
// trip) grows it by copying it whole, 2 → 4 → 8 → 16 KiB, each copy
// walking every frame. A 100-turn session started about 12 such
// goroutines a turn, whose stacks were copied about 35 times a turn, about
// 6 % of the process tree's CPU (perf, docs/benchmarks.md). Go hands a function to
// a goroutine that has finished an earlier one and waits for the next,
// or starts a new goroutine when none waits.
//
// At most MaxIdle goroutines wait; one that finishes while that many
// wait ends. A waiting goroutine holds its stack until the garbage
// collector shrinks it (it halves the stack of a goroutine that uses less
// than a quarter of it), as gRPC's stream workers do
// (grpc.NumStreamWorkers). A function run by Go behaves as under a go
// statement: a panic ends the process; its traceback names the pool's
// goroutine as the creator, not the caller of Go.
//
// Waiting goroutines live as long as the process. Leak checks ignore
// them by their waiting function (testkit.Run does, with
// goleak.IgnoreTopFunction(IdleFunction); a plugin's own tests with
// sdk.IdleGoroutine, the same name); a goroutine still running a function
// has that function on top and is reported as any other.
package gopool
