package sdk

import (
	"context"
	"encoding/json"
)

// Hook phases a hook plugin may subscribe to.
const (
	PhasePreExecute  = "tools/pre-execute"
	PhaseApprove     = "tools/approve"
	PhasePostExecute = "tools/post-execute"
	PhaseResult      = "tools/result"
	PhaseLLMStream   = "llm/stream"
)

// Decision of a hook. DecisionNone leaves the decision to the next rule.
type Decision int

// Decisions.
const (
	DecisionNone Decision = iota
	DecisionAllow
	DecisionDeny
)

// HookEvent is one occurrence of a subscribed phase.
type HookEvent struct {
	Phase      string
	SessionID  string
	Agent      string
	CallID     string
	Tool       string
	Arguments  json.RawMessage
	ActionKind string // tools/approve: "terminal", "write_file", "mcp" or "tool"
	Summary    string // tools/approve: what the action does, for people
	Result     string // tools/post-execute, tools/result
	ResultErr  *Error
	Model      string // llm/stream
}

// HookVerdict is a hook's answer.
type HookVerdict struct {
	Decision Decision
	Reason   string
}

// Hook is what a hook plugin implements.
type Hook interface {
	Phases(ctx context.Context) ([]string, error)
	Handle(ctx context.Context, ev HookEvent) (HookVerdict, error)
}
