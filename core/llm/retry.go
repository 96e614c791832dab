package llm

import (
	"context"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// Jitter spreads retry delays so that clients do not retry in lockstep.
type Jitter int

// Jitter strategies for an exponential backoff d.
const (
	EqualJitter Jitter = iota // d/2 + random(d/2): never less than half the backoff
	FullJitter                // random(d)
)

// RetryPolicy says how often and how long to wait before attempting a
// binding again.
type RetryPolicy struct {
	MaxRetries    int           // retries per binding after the first attempt
	BaseDelay     time.Duration // backoff of the first retry, doubled for each next one
	MaxRetryAfter time.Duration // a server's Retry-After is honoured up to this
	Jitter        Jitter
}

// DefaultRetryPolicy is DESIGN §5: at most 3 retries (4 attempts) per binding,
// backoff 0.5 s, 1 s, 2 s with equal jitter, Retry-After honoured up to 60 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 500 * time.Millisecond, MaxRetryAfter: 60 * time.Second, Jitter: EqualJitter}
}

// Backoff returns the wait before the n-th backoff retry (1-based) for a
// random number r in [0, 1), and the server's retryAfter hint when it is
// longer (capped at MaxRetryAfter).
func (p RetryPolicy) Backoff(n int, r float64, retryAfter time.Duration) time.Duration {
	d := p.BaseDelay << max(n-1, 0)
	switch p.Jitter {
	case FullJitter:
		d = time.Duration(r * float64(d))
	default:
		d = d/2 + time.Duration(r*float64(d/2))
	}
	if retryAfter > d {
		d = min(retryAfter, p.MaxRetryAfter)
	}
	return d
}

// backoffKinds are retried with backoff until the binding's retries are
// spent. stale_handle and process_exit are retried once, at once, after a
// new PrepareCall; every other kind (auth, billing, invalid_request,
// stream_violation, budget_exceeded, canceled, internal) is final.
func backoffKind(k sdk.ErrorKind) bool {
	switch k {
	case sdk.KindRateLimited, sdk.KindProviderUnavailable, sdk.KindTimeout, sdk.KindTruncated:
		return true
	}
	return false
}

func reprepareKind(k sdk.ErrorKind) bool {
	return k == sdk.KindStaleHandle || k == sdk.KindProcessExit
}

// Sleeper waits d or until ctx is done, returning ctx's error then.
type Sleeper func(ctx context.Context, d time.Duration) error

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
