// Package mcp is the bridge between a run and the MCP servers of its
// configuration (mcp blocks, DESIGN §4 and §6), built on the official MCP
// Go SDK. It starts or connects to the servers, lists their tools, adds
// them to the tool registry as NAME__tool, and runs their calls.
//
// It owns the servers' lifetime and the translation between MCP and the
// harness's tool model. It does not decide whether a call may run: every
// MCP tool is registered with origin mcp and the approval of its block
// (default ask), and core/approval's pipeline decides from those, exactly
// as for terminal. Visibility, argument validation against the server's
// schema, deadlines, output caps and events belong to core/tools'
// executor. core/config checks the blocks; `harness validate` never starts
// a server and never uses this package.
//
// # Starting
//
// [New] starts nothing. [Bridge.Register] starts the servers whose tools
// the agent whitelists ("NAME__tool" or "NAME__*"), all at once, runs the
// MCP handshake (bounded by two minutes: npx may fetch a package first) and
// lists each server's tools once. [Bridge.Servers] does the same for every
// server of the configuration, for `harness plugins list`. A stdio server
// runs its command in the workspace, with an explicit environment: PATH,
// HOME, the locale and the few other variables programs need
// (pluginhost.BaseEnv), then the block's env — never the rest of harness's
// environment, where the DeepSeek key is. A program given as a relative
// path is taken from the configuration's directory; a bare name is looked
// up in that PATH. An HTTP server is reached over streamable HTTP, without
// the optional standalone SSE stream (the bridge needs no server-initiated
// messages).
//
// # Tools
//
// A tool is registered as [ToolName] (server, tool): characters providers
// refuse become '_', and a name longer than 64 characters is cut and ends
// with a hash of the original. Only whitelisted tools are registered: all
// of a server's for "NAME__*", the named ones otherwise, so the registry
// and the model never see the others. A whitelisted tool the server does
// not offer, two tools of a server with one name, and a name another tool
// already has are errors that stop the run before its first request. The
// input schema is the server's, as it sent it. Capabilities follow the
// tool's annotations (readOnlyHint, openWorldHint); they only decide
// whether the calls of one turn may run at once, never approvals.
//
// # Calls and failures
//
// A call is tools/call on the server's session. Its content becomes the
// result's text, also shown to people as a text view: text as it is,
// images and audio as a note of type and size ("[image: image/png, 4033
// bytes]"), resource links and embedded resources as a line naming the URI
// (an embedded text resource is followed by its text), structured content
// alone as its JSON. A result the server flags isError is an error of kind
// internal — the failure is the tool's own, and only the server knows its
// nature — whose message quotes the server's first line and whose content
// keeps its whole text, so the model can correct itself. A JSON-RPC
// "invalid params" refusal is invalid_args; other refusals are internal.
//
// A server that exits during a call gives process_exit, with its exit
// status and the end of its stderr; one that does not answer within the
// call's deadline gives timeout and is stopped, since it may be wedged. In
// both cases the next call starts a fresh process and session; a server
// found dead between calls is started again without an error (a warning is
// logged). An HTTP server that drops the connection gives internal and is
// connected to again on the next call. Tools are listed once: a server
// started again serves the tools registered from its first session.
//
// # Processes
//
// A stdio server runs in a process group of its own with, on Linux, a
// parent-death signal (SIGTERM, which launchers such as npx pass on to the
// server they start), so it does not outlive a harness that is killed.
// Every line of its stderr goes to the hclog logger at debug level (named
// mcp, with the server's name); the last 2 KiB are kept for errors. When a
// server exits, what is left of its process group is killed. [Bridge.Close]
// closes each server's stdin and sends its group SIGTERM, as the MCP
// specification asks, then kills the group after two seconds. A process a
// server moves to a group of its own, and that ignores the end of its
// stdin, is beyond the bridge's reach when harness is killed outright.
//
// The client advertises no capabilities: servers get no sampling,
// elicitation or roots from harness, and their notifications (progress,
// list changes, logging) are not used. Prompts and resources of a server
// are not exposed.
package mcp
