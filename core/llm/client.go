package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/sdk"
)

// BudgetCheck is called before every attempt; an error (kind
// budget_exceeded) stops the request before it costs anything.
type BudgetCheck func(ctx context.Context) error

// Options configure a Client. The zero value is the production setup
// without a budget.
type Options struct {
	Budget BudgetCheck
	Retry  *RetryPolicy   // nil: DefaultRetryPolicy
	Sleep  Sleeper        // nil: real time; tests inject one that does not wait
	Rand   func() float64 // jitter source in [0, 1); nil: math/rand/v2
	Hooks  []Hook         // extra hooks, run around each attempt inside the built-in ones
	// StreamHooks are the llm/stream hook plugins, called before and after
	// each model request in order.
	StreamHooks []StreamHook
	Logger      hclog.Logger // nil: none
}

// Client runs model calls through the llm/stream waterfall. It keeps one
// prepared handle per binding and is safe for concurrent use.
type Client struct {
	streamers StreamerResolver
	hooks     []Hook
	handler   Handler

	mu      sync.Mutex
	handles map[bindingKey]sdk.Handle
	// preparing holds, per binding being prepared, a channel closed when
	// its Prepare returns: a request that needs the handle meanwhile waits
	// for it instead of preparing again.
	preparing map[bindingKey]chan struct{}
}

// NewClient returns a Client over the providers that streamers resolves. The
// chain of hooks, outermost first, is: fallback (over the request's bindings),
// the llm/stream hooks (once per binding tried), retry (per binding), budget (pre-check of each attempt), metering (usage
// and cost of each attempt), then opts.Hooks, then the attempt itself.
func NewClient(streamers StreamerResolver, opts Options) *Client {
	policy := DefaultRetryPolicy()
	if opts.Retry != nil {
		policy = *opts.Retry
	}
	sleeper := opts.Sleep
	if sleeper == nil {
		sleeper = sleep
	}
	random := opts.Rand
	if random == nil {
		random = rand.Float64
	}
	c := &Client{streamers: streamers, handles: map[bindingKey]sdk.Handle{}, preparing: map[bindingKey]chan struct{}{}}
	logger := opts.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	c.hooks = append([]Hook{
		fallbackHook{},
		requestHook{hooks: opts.StreamHooks, log: logger},
		retryHook{policy: policy, sleep: sleeper, rand: random},
		budgetHook{check: opts.Budget},
		meteringHook{},
	}, opts.Hooks...)
	c.handler = c.attempt
	for i := len(c.hooks) - 1; i >= 0; i-- {
		c.handler = c.hooks[i].Wrap(c.handler)
	}
	return c
}

// HookNames returns the names of the hook chain, outermost first.
func (c *Client) HookNames() []string {
	names := make([]string, len(c.hooks))
	for i, h := range c.hooks {
		names[i] = h.Name()
	}
	return names
}

// Complete streams one assistant message for req, reporting retries, chunks
// and usage to obs (nil: none). It returns the message of the attempt that
// finished and the binding that produced it. On failure the error carries the
// kind of the last attempt's failure (sdk.KindOf) and the binding is the last
// one tried.
func (c *Client) Complete(ctx context.Context, req Request, obs Observer) (AssistantMessage, Binding, error) {
	if obs == nil {
		obs = nopObserver{}
	}
	if len(req.Bindings) == 0 {
		return AssistantMessage{}, Binding{}, sdk.Errorf(sdk.KindInvalidRequest, "llm: the request names no model")
	}
	if ctx.Err() != nil {
		return AssistantMessage{}, req.Bindings[0], contextError(ctx)
	}
	call := &Call{Request: req, Observer: obs, Binding: req.Bindings[0], Fallback: 1}
	msg, err := c.handler(ctx, call)
	if err != nil {
		return AssistantMessage{}, call.Binding, err
	}
	return msg, call.Binding, nil
}

// attempt is the innermost handler: one Prepare (unless the binding's handle
// is kept) and one Stream, assembled.
func (c *Client) attempt(ctx context.Context, call *Call) (AssistantMessage, error) {
	s, err := c.streamers(call.Binding.Provider)
	if err != nil {
		return AssistantMessage{}, fmt.Errorf("provider: %w", err)
	}
	h, err := c.handle(ctx, s, call.Binding)
	if err != nil {
		if ctx.Err() != nil {
			return AssistantMessage{}, contextError(ctx)
		}
		return AssistantMessage{}, fmt.Errorf("prepare: %w", err)
	}
	req := streamRequest(call)
	m := &meter{call: call, maxOutput: req.MaxOutput}
	asm := NewAssembler(func(block int, kind, delta string) {
		m.outBytes += int64(len(delta))
		call.Observer.OnChunk(block, kind, delta)
	})
	// Canceling the stream's context is what stops the provider's request
	// when the emit below refuses a chunk.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = s.Stream(sctx, h, req, func(ch sdk.StreamChunk) error {
		if err := asm.Add(ch); err != nil {
			return err
		}
		return m.check(asm.Usage())
	})
	if le, ok := AsLimit(err); ok {
		return AssistantMessage{Usage: le.Progress.Usage}, err
	}
	if err == nil {
		var msg AssistantMessage
		if msg, err = asm.Message(); err == nil {
			return msg, nil
		}
	}
	if ctx.Err() != nil {
		err = contextError(ctx)
	}
	if reprepareKind(sdk.KindOf(err)) {
		c.forget(call.Binding, h)
	}
	return AssistantMessage{Usage: asm.Usage()}, err
}

func streamRequest(call *Call) sdk.StreamRequest {
	b := call.Binding
	maxOut := call.Request.MaxOutput
	if maxOut == 0 {
		maxOut = b.Model.MaxOutput
	}
	return sdk.StreamRequest{
		Model:           b.Model,
		Thinking:        b.Thinking,
		ReplayReasoning: b.ReplayReasoning,
		Messages:        call.Request.Messages,
		Tools:           call.Request.Tools,
		ToolChoice:      call.Request.ToolChoice,
		MaxOutput:       maxOut,
	}
}

// bindingKey identifies the prepared metadata of a binding: a changed
// binding (other pricing, window, thinking...) is prepared anew.
type bindingKey struct {
	binding Binding // with Model.Pricing nil
	pricing sdk.Pricing
	priced  bool
}

func keyOf(b Binding) bindingKey {
	k := bindingKey{binding: b}
	if p := b.Model.Pricing; p != nil {
		k.pricing, k.priced = *p, true
	}
	k.binding.Model.Pricing = nil
	return k
}

// Prepare prepares the handle of b ahead of its first request, unless one
// is kept: the provider's PrepareCall then runs while the caller does what
// comes before the request (a request that comes first waits for it). A
// failure is not kept: the request prepares again and meets it itself.
func (c *Client) Prepare(ctx context.Context, b Binding) {
	if s, err := c.streamers(b.Provider); err == nil {
		_, _ = c.handle(ctx, s, b)
	}
}

func (c *Client) handle(ctx context.Context, s Streamer, b Binding) (sdk.Handle, error) {
	k := keyOf(b)
	for {
		c.mu.Lock()
		if h, ok := c.handles[k]; ok {
			c.mu.Unlock()
			return h, nil
		}
		wait, busy := c.preparing[k]
		if !busy {
			done := make(chan struct{})
			c.preparing[k] = done
			c.mu.Unlock()
			h, err := s.Prepare(ctx, b)
			c.mu.Lock()
			delete(c.preparing, k)
			if err == nil {
				c.handles[k] = h
			}
			c.mu.Unlock()
			close(done)
			return h, err
		}
		c.mu.Unlock()
		select {
		case <-wait: // kept, or failed: then this call prepares
		case <-ctx.Done():
			return sdk.Handle{}, ctx.Err()
		}
	}
}

// forget drops the kept handle of b if it is still h (a concurrent call may
// already have prepared a new one).
func (c *Client) forget(b Binding, h sdk.Handle) {
	k := keyOf(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handles[k] == h {
		delete(c.handles, k)
	}
}

// contextError is the error of a canceled request: kind canceled (timeout
// for an expired deadline), still matching errors.Is(err, ctx.Err()).
func contextError(ctx context.Context) error {
	cause := ctx.Err()
	e := sdk.Errorf(sdk.KindCanceled, "the model call was canceled")
	if errors.Is(cause, context.DeadlineExceeded) {
		e = sdk.Errorf(sdk.KindTimeout, "the model call ran past its deadline")
	}
	return fmt.Errorf("%w (%w)", e, cause)
}
