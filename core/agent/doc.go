// Package agent is the ToolLoop: it runs an agent's conversation turn by
// turn — a model request through the llm layer, then the tool calls the
// model asked for through the tool executor — until the model answers
// without calling a tool, or a limit stops the run (max_turns, a budget,
// the repeated-call guard, or a context that cannot be compacted enough).
//
// Every step is recorded as an event (DESIGN §8) through a Recorder before
// anyone is told of it; the session store is the usual Recorder. The loop
// also meters usage, checks budgets before each request, measures how many
// leading bytes each request shares with the previous one (the provider's
// prefix cache), and compacts the context with a Compactor when it grows
// past the agent's threshold.
//
// The loop does not know plugins, HTTP, HCL or terminals: it is given a
// Model, Tools and a Recorder (of core/event types), which core/runner
// wires from the configuration. Rebuilding a conversation from recorded events (resume)
// is in resume.go.
package agent
