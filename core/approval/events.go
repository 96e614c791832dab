package approval

import (
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
)

// Event types written by the pipeline.
const (
	EventProposed = event.TypeActionProposed
	EventDecided  = event.TypeActionDecided
)

// Decisions of action.decided.
const (
	Approved = session.ActionApproved
	Denied   = session.ActionDenied
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
	ActionTerminal  = session.ActionTerminal
	ActionWriteFile = session.ActionWriteFile
	ActionMCP       = session.ActionMCP
	ActionTool      = session.ActionTool
)

// ProposedEvent is the data of action.proposed.
type ProposedEvent = event.ActionProposed

// DecidedEvent is the data of action.decided.
type DecidedEvent = event.ActionDecided
