package approval

import (
	"context"
	"fmt"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// verdict is the decision on one action.
type verdict struct {
	decision string // Approved, Denied or Deferred
	by       string
	rule     string
	canceled bool // the run ended while a person was asked
}

// explain says who denied and why, for the model.
func (v verdict) explain() string {
	switch v.by {
	case ByPolicy:
		return "by policy (" + v.rule + ")"
	case ByHook:
		return "by " + v.rule
	case ByUser:
		return "by the user"
	case ByUnattended:
		return "because it needs a person's approval and nobody can answer (" + v.rule + ")"
	}
	return "by " + v.by
}

// Rules of decisions made by a person or a flag.
const (
	ruleYes     = "yes"
	ruleNo      = "no"
	ruleAlways  = "always for this session"
	ruleFlagYes = "--yes"
)

// decide applies the rules in order; the first that matches decides.
func (p *Pipeline) decide(ctx context.Context, req tools.ApprovalRequest, pl plan, act session.Action) verdict {
	// 1. Hard denials.
	if pl.deny != "" {
		return verdict{decision: Denied, by: ByPolicy, rule: pl.deny}
	}
	// 2. Approve hooks: a deny wins, an allow approves, a failure denies.
	if req.Hooks != nil {
		switch h := req.Hooks(ctx, pl.kind, pl.summary); h.Decision {
		case sdk.DecisionDeny:
			return verdict{decision: Denied, by: ByHook, rule: hookRule(h)}
		case sdk.DecisionAllow:
			return verdict{decision: Approved, by: ByHook, rule: hookRule(h)}
		}
	}
	// 3. Allow rules, which never approve a command that did not parse.
	if pl.allow != "" && (pl.kind != KindTerminal || pl.parsed) {
		return verdict{decision: Approved, by: ByPolicy, rule: pl.allow}
	}
	// 4. An "always" answered earlier in the session.
	if p.remembered(pl.signature) {
		return verdict{decision: Approved, by: ByUser, rule: ruleAlways}
	}
	// 5. --yes.
	if p.opts.Yes {
		return verdict{decision: Approved, by: ByFlag, rule: ruleFlagYes}
	}
	// 6. The person at the terminal.
	if p.opts.Asker != nil {
		if v, ok := p.ask(ctx, pl, act); ok {
			return v
		}
	}
	// 7. Nobody can answer.
	if p.perm.Unattended == config.UnattendedDefer {
		return verdict{decision: Deferred, by: ByUnattended, rule: `unattended = "defer"`}
	}
	return verdict{decision: Denied, by: ByUnattended, rule: `unattended = "deny"`}
}

func hookRule(h tools.HookDecision) string {
	if h.Reason == "" {
		return fmt.Sprintf("hook %q", h.Hook)
	}
	return fmt.Sprintf("hook %q: %s", h.Hook, h.Reason)
}

// ask puts the action to the person. ok is false when nobody answered.
func (p *Pipeline) ask(ctx context.Context, pl plan, act session.Action) (verdict, bool) {
	p.askMu.Lock()
	defer p.askMu.Unlock()
	// A question answered "always" while this one waited covers it too.
	if p.remembered(pl.signature) {
		return verdict{decision: Approved, by: ByUser, rule: ruleAlways}, true
	}
	answer, err := p.opts.Asker.Ask(ctx, Action{Action: act, Reason: pl.reason, Diff: pl.diff})
	switch {
	case ctx.Err() != nil:
		return verdict{canceled: true}, true
	case err != nil:
		p.log.Warn("nobody could answer the approval question", "action", act.ID, "error", err)
		return verdict{}, false
	}
	switch answer {
	case Yes:
		return verdict{decision: Approved, by: ByUser, rule: ruleYes}, true
	case Always:
		p.remember(pl.signature)
		return verdict{decision: Approved, by: ByUser, rule: ruleAlways}, true
	}
	return verdict{decision: Denied, by: ByUser, rule: ruleNo}, true
}

func (p *Pipeline) remembered(sig string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.always[sig]
}

func (p *Pipeline) remember(sig string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.always[sig] = true
}
