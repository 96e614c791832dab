// Package approval is the action pipeline of DESIGN §6: it decides which
// tool calls run directly and which become proposed actions, and decides
// those in a fixed order.
//
// Direct: read-only tools, emit_artifact, write_file inside the agent's
// permissions.write globs (matched on the real path, symlinks resolved),
// and tools of a plugin or MCP server whose block says approval = "allow".
// Through the pipeline: terminal always, write_file elsewhere in the
// workspace, third-party tools flagged writes or executes, and MCP tools.
// A write_file whose path resolves outside the workspace is refused as
// path_escape before any action exists: nobody could approve it into
// working.
//
// A proposed action is recorded in the session store and decided, first
// match wins: hard denials (deny_commands, terminal = "deny", a redirection
// outside the workspace, approval = "deny") by policy; tools/approve hooks
// (a deny or a failure denies, an allow approves); allow rules, never for a
// command that did not parse; an "always" answered earlier in the session;
// --yes; the person at the terminal ([Asker]); and when nobody can answer,
// unattended = "deny" or "defer" (the action stays pending and the model is
// told so). Every decision is an action.decided event naming who decided
// and by which rule. [Apply] decides a pending action later, for `harness
// actions approve|deny`, and runs an approved one through the same tool.
//
// The package does not parse shell commands (core/shellpolicy does), run
// tools or hooks (core/tools does) or talk to people (the CLI implements
// Asker). Remembered "always" answers live as long as the Pipeline: one
// run of a session.
package approval
