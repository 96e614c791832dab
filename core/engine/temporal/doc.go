// Package temporal runs an agent session as a durable Temporal workflow
// (go.temporal.io/sdk): the engine for sessions that outlive one process.
//
// The workflow is the ToolLoop itself: it runs core/agent's Loop — the
// same turn limits, budgets, compaction decisions and stop rules as a
// local run, one implementation — with a Model, Tools, Recorder and Meter
// whose every side effect is an activity. A model request is an activity
// (it streams its deltas into the session store as they arrive and
// returns the assembled message and usage), a tool call is an activity,
// the compaction summarizer's call is an activity, and an approval is a
// durable wait on a signal (with the permissions' approval_timeout, a
// durable timer: denied on expiry).
//
// Events the loop records in the workflow are buffered and committed by
// the next activity before it does its own work, so the session's event
// log keeps the order of a local run and a replay of the workflow after a
// worker restart records nothing twice. A model request that completed is
// in the workflow's history and is not sent again; a tool call that was
// in flight when its worker died is retried only when the tool is
// read-only, otherwise the model is told it was interrupted.
//
// The worker side (what builds the model client, the tool executor and the
// approval pipeline of a session) is given as a Sessions; cmd/harness
// wires it from the configuration.
package temporal
