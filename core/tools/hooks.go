package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// The phases of a call, in order, are each a hook point: PhaseFind,
// PhasePrepare, sdk.PhasePreExecute, sdk.PhaseApprove, PhaseExecute,
// sdk.PhasePostExecute, PhaseNormalize and sdk.PhaseResult. Hook plugins
// may subscribe to the sdk's (sdk.HookPhases); in-process hooks to any.
const (
	PhaseFind      = "tools/find"
	PhasePrepare   = "tools/prepare"
	PhaseExecute   = "tools/execute"
	PhaseNormalize = "tools/normalize"
)

// HookFunc handles one event of a subscribed phase.
type HookFunc func(ctx context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error)

// Hook is a subscriber to call phases: a Go function of the core or a hook
// plugin (see PluginHook).
type Hook struct {
	Name   string
	Phases []string
	// Timeout bounds each call of Handle; 0 means no bound of its own.
	Timeout time.Duration
	Handle  HookFunc
}

// PluginHook subscribes a hook plugin (a pluginhost.HookHandle) to phases,
// each call bounded by timeout: what an HCL hook block declares.
func PluginHook(name string, h sdk.Hook, phases []string, timeout time.Duration) Hook {
	return Hook{Name: name, Phases: phases, Timeout: timeout, Handle: h.Handle}
}

// HookDecision is the verdict of a deciding phase.
type HookDecision struct {
	Decision sdk.Decision
	Hook     string // the hook that decided; "" for DecisionNone
	Reason   string
}

// hookSet indexes hooks by phase, in the order given.
type hookSet map[string][]Hook

func newHookSet(hooks []Hook) hookSet {
	hs := hookSet{}
	for _, h := range hooks {
		for _, p := range h.Phases {
			hs[p] = append(hs[p], h)
		}
	}
	return hs
}

// decide runs the hooks of a deciding phase in order. A Deny, an error or
// a timeout stops at once with Deny; otherwise an Allow from any hook
// allows; otherwise the decision is left to what follows.
func (e *Executor) decide(ctx context.Context, ev sdk.HookEvent) HookDecision {
	var allow HookDecision
	for _, h := range e.hooks[ev.Phase] {
		v, err := e.callHook(ctx, h, ev)
		switch {
		case err != nil:
			e.log.Warn("hook failed where it decides: the call is denied", "hook", h.Name, "phase", ev.Phase, "tool", ev.Tool, "error", err)
			return HookDecision{Decision: sdk.DecisionDeny, Hook: h.Name, Reason: "the hook failed, which denies: " + err.Error()}
		case v.Decision == sdk.DecisionDeny:
			return HookDecision{Decision: sdk.DecisionDeny, Hook: h.Name, Reason: v.Reason}
		case v.Decision == sdk.DecisionAllow && allow.Decision == sdk.DecisionNone:
			allow = HookDecision{Decision: sdk.DecisionAllow, Hook: h.Name, Reason: v.Reason}
		}
	}
	return allow
}

// observe runs the hooks of an observing phase; their verdicts and
// failures change nothing.
func (e *Executor) observe(ctx context.Context, ev sdk.HookEvent) {
	for _, h := range e.hooks[ev.Phase] {
		if _, err := e.callHook(ctx, h, ev); err != nil {
			e.log.Warn("hook failed where it only observes: ignored", "hook", h.Name, "phase", ev.Phase, "tool", ev.Tool, "error", err)
		}
	}
}

// callHook calls h under its timeout. A panic of an in-process hook is an
// error like any other.
func (e *Executor) callHook(ctx context.Context, h Hook, ev sdk.HookEvent) (v sdk.HookVerdict, err error) {
	if h.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.Timeout)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("hook %q panicked: %v", h.Name, r)
		}
	}()
	v, err = h.Handle(ctx, ev)
	if err != nil && h.Timeout > 0 && (errors.Is(ctx.Err(), context.DeadlineExceeded) || sdk.KindOf(err) == sdk.KindTimeout) {
		return v, fmt.Errorf("hook %q did not answer within %s", h.Name, h.Timeout)
	}
	if err != nil {
		return v, fmt.Errorf("hook %q: %w", h.Name, err)
	}
	return v, nil
}
