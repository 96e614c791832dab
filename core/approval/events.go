package approval

import "github.com/harness-agent/harness/core/event"

// Event types written by the pipeline.
const (
	EventProposed = event.TypeActionProposed
	EventDecided  = event.TypeActionDecided
)

// Decisions of action.decided.
const (
	Approved = "approved"
	Denied   = "denied"
	Deferred = "deferred"
)

// Deciders (action.decided "by").
const (
	ByPolicy     = "policy"
	ByHook       = "hook"
	ByUser       = "user"
	ByFlag       = "flag"
	ByUnattended = "unattended"
)

// Action kinds.
const (
	ActionTerminal  = "terminal"
	ActionWriteFile = "write_file"
	ActionMCP       = "mcp"
	ActionTool      = "tool"
)

// ProposedEvent is the data of action.proposed.
type ProposedEvent = event.ActionProposed

// DecidedEvent is the data of action.decided.
type DecidedEvent = event.ActionDecided
