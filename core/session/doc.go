// Package session is the durable record of what harness runs did.
//
// It owns one embedded SQLite database per user, shared by every workspace
// and kept out of every workspace (a model's tools can write there): by
// default $XDG_STATE_HOME/harness/harness.db or
// ~/.local/state/harness/harness.db, else where --store, --state-dir,
// $HARNESS_STORE or $HARNESS_STATE_DIR say (Locator). Stores that older
// versions kept in a workspace's .harness/ folder are imported, read-only
// (ImportLegacy). It holds four kinds of records:
//
//   - sessions: one per run (agent, model, the absolute path of the
//     configuration file and the hash of the configuration, workspace,
//     status, start and end);
//   - events: the append-only, per-session numbered stream that
//     `harness run --json` prints and that resume rebuilds a conversation
//     from (DESIGN §8);
//   - usage: token counts and cost of every model request, summed per
//     session;
//   - actions: tool calls that went through the action pipeline (DESIGN §6),
//     from proposed to approved or denied, and the result once executed.
//
// Durability is the point of the package: a write is committed (WAL,
// synchronous=NORMAL) before the call that made it returns, so whatever a
// caller has shown to a person or a program survives a crash of the
// process, SIGKILL included. A power loss may lose the last commits before
// a checkpoint; the store stays consistent either way. Event numbers are gap-free per session even when several
// goroutines or processes append at once.
//
// What a SQLite store spends per process is kept small, since every
// harness process opens one: opening a current store reads its version in
// one statement and runs no DDL; each statement of the writes is prepared
// once per Store, on first use (Store.writeWith); closing leaves the
// write-ahead log for the next process to read instead of checkpointing
// it on the way out, and an open checkpoints a log grown past walLimit
// (wal.go, docs/reliability.md "The store's write-ahead log").
//
// The package decides nothing. It does not judge whether an action should be
// approved, whether a budget is spent or what an event means; it only keeps
// the state machine of records honest (an action is decided once, a result
// is recorded only for an approved action, a running session ends once) and
// says clearly when the database cannot be written. It never stores resolved
// configuration values: they may hold secrets.
package session
