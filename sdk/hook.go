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
	Model      string // llm/stream: the HCL model block's name

	// llm/stream only.
	Stage    string // StageBefore or StageAfter
	Provider string // the HCL provider block's name
	Fallback int    // 1-based position of Model in the agent's fallback list
	// Message is the assembled assistant message (StageAfter, when the
	// request succeeded) as JSON: {"content", "reasoning", "tool_calls":
	// [{"id", "name", "arguments"}], "finish_reason"}; ResultErr is set
	// instead when it failed.
	Message json.RawMessage
	Usage   *Usage // StageAfter: what the request consumed, when reported
}

// Stages of an llm/stream event: a deny verdict at StageBefore vetoes the
// model request; verdicts at StageAfter are ignored.
const (
	StageBefore = "before"
	StageAfter  = "after"
)

// HookVerdict is a hook's answer.
type HookVerdict struct {
	Decision Decision
	Reason   string
	// Metadata (llm/stream, StageBefore) is recorded with the request's
	// llm.request event under "hook_metadata".
	Metadata map[string]string
}

// Hook is what a hook plugin implements.
type Hook interface {
	Phases(ctx context.Context) ([]string, error)
	Handle(ctx context.Context, ev HookEvent) (HookVerdict, error)
}
