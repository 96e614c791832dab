package approval

import (
	"github.com/harness-agent/harness/core/session"
)

// Decisions of action.decided.
const (
	Approved = session.ActionStatusApproved
	Denied   = session.ActionStatusDenied
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
