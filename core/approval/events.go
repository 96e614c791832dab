package approval

// Event types written by the pipeline.
const (
	EventProposed = "action.proposed"
	EventDecided  = "action.decided"
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
	KindTerminal  = "terminal"
	KindWriteFile = "write_file"
	KindMCP       = "mcp"
	KindTool      = "tool"
)

// ProposedEvent is the data of action.proposed.
type ProposedEvent struct {
	ActionID string `json:"action_id"`
	CallID   string `json:"call_id"`
	Tool     string `json:"tool"`
	Kind     string `json:"kind"`
	Summary  string `json:"summary"`
}

// DecidedEvent is the data of action.decided.
type DecidedEvent struct {
	ActionID string `json:"action_id"`
	CallID   string `json:"call_id"`
	Decision string `json:"decision"`
	By       string `json:"by"`
	Rule     string `json:"rule"`
	// Remember lists the scopes an "always" approved for the rest of the
	// session (see scope.go); a resumed run remembers them again.
	Remember []string `json:"remember,omitempty"`
}
