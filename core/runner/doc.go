// Package runner assembles one agent run from a configuration: the plugin
// host and catalog, the providers and the model registry, the llm client,
// the tool registry, executor and approval pipeline, the system prompt,
// the session in the store, and the ToolLoop. It starts a new session or
// resumes a recorded one, feeds user messages to the loop, and closes the
// session with its status.
//
// It owns the wiring, not the behaviour: each part's rules live in its own
// package. It knows nothing of terminals: events reach the caller through
// a Sink after they are committed, and approvals through an approval.Asker.
package runner
