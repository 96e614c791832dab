package approval

import (
	"context"
	"fmt"
	"sort"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/shellpolicy"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// verdict is the decision on one action.
type verdict struct {
	decision string // Approved, Denied or Deferred
	by       string
	rule     string
	canceled bool     // the run ended while a person was asked
	reason   string   // a person's reason for a "no", for the model
	remember []string // the scopes an "always" added
}

// explain says who denied and why, for the model.
func (v verdict) explain() string {
	switch v.by {
	case ByPolicy:
		return "by policy (" + v.rule + ")"
	case ByHook:
		return "by " + v.rule
	case ByUser:
		if v.reason != "" {
			return fmt.Sprintf("by the user, who said: %q", v.reason)
		}
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
	if pl.allow != "" && (pl.kind != session.ActionKindTerminal || pl.parsed) {
		return verdict{decision: Approved, by: ByPolicy, rule: pl.allow}
	}
	// 4. An "always" answered earlier in the session.
	if rule, ok := p.remembered(pl); ok {
		return verdict{decision: Approved, by: ByUser, rule: rule}
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
	if rule, ok := p.remembered(pl); ok {
		return verdict{decision: Approved, by: ByUser, rule: rule}, true
	}
	answer, err := p.opts.Asker.Ask(ctx, Action{
		Action: act, Reason: pl.reason, Command: pl.command, Commands: pl.commands,
		Diff: pl.diff, Scope: DescribeScope(pl.scope),
	})
	switch {
	case ctx.Err() != nil:
		return verdict{canceled: true}, true
	case err != nil:
		p.log.Warn("nobody could answer the approval question", "action", act.ID, "error", err)
		return verdict{}, false
	}
	switch answer.Choice {
	case ChoiceYes:
		return verdict{decision: Approved, by: ByUser, rule: ruleYes}, true
	case ChoiceAlways:
		p.Remember(pl.scope...)
		return verdict{decision: Approved, by: ByUser, rule: ruleAlwaysFor(pl.scope), remember: pl.scope}, true
	}
	v := verdict{decision: Denied, by: ByUser, rule: ruleNo, reason: answer.Reason}
	if answer.Reason != "" {
		v.rule = ruleNo + ": " + answer.Reason
	}
	return v, true
}

// remembered reports whether an "always" of the session covers the plan,
// and the rule to record. A terminal command is covered when every simple
// command matches a remembered pattern (or an allow_commands entry) under
// the same policy as allow_commands: deny rules, redirections and the
// constructs that always need a person still apply.
func (p *Pipeline) remembered(pl plan) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.always) == 0 {
		return "", false
	}
	if pl.kind == session.ActionKindTerminal && pl.parsed {
		patterns := p.always.patterns()
		if len(patterns) == 0 {
			return "", false
		}
		policy := p.policy
		policy.Terminal = config.PolicyAsk
		policy.AllowCommands = append(append([]string(nil), p.perm.AllowCommands...), patterns...)
		if v := shellpolicy.Classify(pl.command, policy); v.Decision == shellpolicy.Allow && v.Parsed {
			return ruleAlwaysFor(pl.scope), true
		}
		return "", false
	}
	for _, k := range pl.scope {
		if !p.always[k] {
			return "", false
		}
	}
	return ruleAlwaysFor(pl.scope), len(pl.scope) > 0
}

// Remember adds scopes a person approved with "always" (a resumed run
// passes those its session recorded; see RememberedScopes).
func (p *Pipeline) Remember(keys ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range keys {
		p.always[k] = true
	}
}

// Remembered returns the session's remembered scopes, sorted.
func (p *Pipeline) Remembered() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.always))
	for k := range p.always {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
