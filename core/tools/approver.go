package tools

import (
	"context"
	"encoding/json"

	"github.com/harness-agent/harness/sdk"
)

// Approver is the tools/approve phase: it decides whether a call runs
// directly, goes through the action pipeline and is approved, or is denied
// or left pending. core/approval implements it.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) Approval
	// Executed records the result of a call the pipeline approved as actionID.
	Executed(ctx context.Context, actionID string, result ResultEvent) error
}

// Pinner is an Approver that pins what it checks in the arguments of a
// call approved earlier (RunApproved), which skips the approve phase: the
// arguments the call then runs with, or nil to run it as stored.
type Pinner interface {
	Pin(req ApprovalRequest) json.RawMessage
}

// ApprovalRequest is one call that reached the approve phase.
type ApprovalRequest struct {
	Call sdk.Call // arguments canonical and valid
	Tool Tool
	// Hooks runs the tools/approve hooks for the proposed action; the
	// pipeline calls it at its step for hooks (never for direct calls).
	Hooks func(ctx context.Context, actionKind, summary string) HookDecision
}

// Approval is an Approver's answer.
type Approval struct {
	// Run says the call executes: directly, or approved as ActionID.
	Run bool
	// ActionID is the proposed action's id when the call went through the pipeline.
	ActionID string
	// Pending says the action awaits a person: Err is pending_approval.
	Pending bool
	// Err says why the call does not run (denied, pending_approval,
	// path_escape, canceled or internal).
	Err *sdk.Error
	// Arguments, when set, are the arguments the call runs with: the
	// validated ones plus what the approver pinned (a write tool's
	// "approved_path", the file the approval was about, which the plugin
	// checks against the file it opens).
	Arguments json.RawMessage
}
