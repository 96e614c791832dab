package sdk

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// Hook phases a hook plugin may subscribe to (an HCL hook block's phases
// lists some of them; [HookPhases] lists them all). The tools/ phases are
// points of a tool call, in this order: at pre-execute and approve hooks
// decide (a deny, an error or a timeout stops the call), at post-execute
// and result they only observe. llm/stream is every model request.
const (
	PhasePreExecute  = "tools/pre-execute"
	PhaseApprove     = "tools/approve"
	PhasePostExecute = "tools/post-execute"
	PhaseResult      = "tools/result"
	PhaseLLMStream   = "llm/stream"
)

// HookPhases returns every phase a hook plugin may subscribe to, in the
// order a tool call passes them, llm/stream last.
func HookPhases() []string {
	return []string{PhasePreExecute, PhaseApprove, PhasePostExecute, PhaseResult, PhaseLLMStream}
}

// IsHookPhase reports whether a hook plugin may subscribe to phase.
func IsHookPhase(phase string) bool {
	return slices.Contains(HookPhases(), phase)
}

// IsToolPhase reports whether phase is a point of a tool call ("tools/…"),
// as opposed to llm/stream.
func IsToolPhase(phase string) bool {
	return strings.HasPrefix(phase, "tools/")
}

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
