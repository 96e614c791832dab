package llm

import (
	"context"
	"fmt"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// Call is the state of one Complete shared along the hook chain.
type Call struct {
	Request  Request
	Observer Observer // never nil
	Binding  Binding  // the binding of the current attempt (set by the fallback hook)
	Attempt  int      // 1-based number of the current attempt over the whole request
	Fallback int      // 1-based position of Binding in Request.Bindings
}

// Handler runs (the rest of) a model call.
type Handler func(ctx context.Context, call *Call) (AssistantMessage, error)

// Hook is one named middleware of the llm/stream phase. Wrap returns a
// Handler that does its work around next.
type Hook interface {
	Name() string
	Wrap(next Handler) Handler
}

// fallbackHook tries the request's bindings in order. It moves to the next
// binding only when one has failed with a retryable kind that the retry hook
// could not overcome; any other failure ends the request.
type fallbackHook struct{}

func (fallbackHook) Name() string { return "fallback" }

func (fallbackHook) Wrap(next Handler) Handler {
	return func(ctx context.Context, call *Call) (AssistantMessage, error) {
		bindings := call.Request.Bindings
		for i := 0; ; i++ {
			b := bindings[i]
			call.Binding, call.Fallback = b, i+1
			msg, err := next(ctx, call)
			if err == nil {
				return msg, nil
			}
			kind := sdk.KindOf(err)
			if ctx.Err() != nil || i == len(bindings)-1 || !(backoffKind(kind) || reprepareKind(kind)) {
				return msg, fmt.Errorf("llm: model %q (provider %q): %w", b.Name, b.Provider, err)
			}
			call.Observer.OnRetry(call.Attempt, kind, 0)
		}
	}
}

// retryHook attempts one binding again after a retryable failure: with
// backoff for rate_limited, provider_unavailable, timeout and truncated;
// at once (with a new PrepareCall) for one stale_handle and one process_exit.
// All of them count against the policy's MaxRetries.
type retryHook struct {
	policy RetryPolicy
	sleep  Sleeper
	rand   func() float64
}

func (retryHook) Name() string { return "retry" }

func (h retryHook) Wrap(next Handler) Handler {
	return func(ctx context.Context, call *Call) (AssistantMessage, error) {
		var backoffs int
		reprepared := map[sdk.ErrorKind]bool{}
		for retries := 0; ; retries++ {
			call.Attempt++
			msg, err := next(ctx, call)
			if err == nil || ctx.Err() != nil || retries >= h.policy.MaxRetries {
				return msg, err
			}
			kind := sdk.KindOf(err)
			var delay time.Duration
			switch {
			case backoffKind(kind):
				backoffs++
				delay = h.policy.Backoff(backoffs, h.rand(), sdk.AsError(err).RetryAfter)
			case reprepareKind(kind) && !reprepared[kind]:
				reprepared[kind] = true
			default:
				return msg, err
			}
			call.Observer.OnRetry(call.Attempt, kind, delay)
			if err := h.sleep(ctx, delay); err != nil {
				if ctx.Err() != nil {
					err = contextError(ctx)
				}
				return AssistantMessage{}, err
			}
		}
	}
}

// budgetHook runs the budget pre-check before each attempt.
type budgetHook struct{ check BudgetCheck }

func (budgetHook) Name() string { return "budget" }

func (h budgetHook) Wrap(next Handler) Handler {
	return func(ctx context.Context, call *Call) (AssistantMessage, error) {
		for _, check := range []BudgetCheck{h.check, call.Request.Budget} {
			if check == nil {
				continue
			}
			if err := check(ctx); err != nil {
				return AssistantMessage{}, err
			}
		}
		return next(ctx, call)
	}
}

// meteringHook reports the usage of every attempt that reported any, failed
// ones included: the provider bills them.
type meteringHook struct{}

func (meteringHook) Name() string { return "metering" }

func (meteringHook) Wrap(next Handler) Handler {
	return func(ctx context.Context, call *Call) (AssistantMessage, error) {
		msg, err := next(ctx, call)
		if msg.Usage != (sdk.Usage{}) {
			call.Observer.OnUsage(call.Binding, msg.Usage, Cost(msg.Usage, call.Binding.Model.Pricing))
		}
		return msg, err
	}
}

var (
	_ Hook = fallbackHook{}
	_ Hook = retryHook{}
	_ Hook = budgetHook{}
	_ Hook = meteringHook{}
)
