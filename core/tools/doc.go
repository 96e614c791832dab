// Package tools is the tool registry and the phases every tool call runs
// through (DESIGN §6).
//
// The [Registry] holds every tool a run knows of — the core's own
// emit_artifact, the tools the catalog's plugins describe, and MCP tools —
// each behind a [Source], with its origin (builtin, plugin, mcp) and the
// approval setting of its block. A tool's input schema is compiled once
// (JSON Schema, santhosh-tekuri/jsonschema) from the very bytes that
// [Registry.Definitions] hands the model, so what the model is shown is what
// calls are validated against.
//
// An agent sees only its whitelisted tools: their schemas go in its
// requests, and a call to any other tool is tool_not_found. Hiding a tool
// removes the cost of its schema from every request; it is not OS-level
// isolation: a visible tool such as terminal can still reach whatever the
// user running harness can.
//
// The [Executor] runs one call through named phases, each a hook point:
// tools/find, tools/prepare (canonical arguments, validation, the loop
// guard, the deadline), tools/pre-execute, tools/approve, tools/execute,
// tools/post-execute, tools/normalize (every error a kind, output capped
// head + tail) and tools/result. Hooks are Go functions of the core or hook
// plugins; at pre-execute and approve they decide and fail closed, at the
// other phases they observe and their failures are only logged. The
// executor owns the guards so that a tool only does its own job, and it
// records tool.call, tool.progress, tool.result and artifact.<type> events
// through a [Recorder].
//
// The package does not decide approvals: the tools/approve phase is an
// [Approver], implemented by core/approval's action pipeline. It does not
// start plugins either (core/pluginhost does) nor drive turns (the agent
// loop calls [Executor.Run] and feeds the outcomes back).
package tools
