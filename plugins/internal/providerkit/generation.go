package providerkit

import (
	"net/http"
	"sync"

	"github.com/harness-agent/harness/sdk"
	"github.com/hashicorp/go-hclog"
)

// Generation is what one Configure set up: its settings, an HTTP client of
// its own and a redactor for its key.
type Generation[C any] struct {
	Config *C
	Client *http.Client
	Redact Redactor
}

// Current holds a provider's current generation. Streams already running
// keep the generation they started with; a Configure replaces it.
type Current[C any] struct {
	mu  sync.Mutex
	gen *Generation[C]
}

// Get returns the current generation, nil before a valid Configure.
func (c *Current[C]) Get() *Generation[C] {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// Replace starts a generation for cfg, whose API key is key (cfg nil: none,
// after a Configure that failed), and closes the idle connections of the
// one before.
func (c *Current[C]) Replace(cfg *C, key string) {
	var gen *Generation[C]
	if cfg != nil {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		gen = &Generation[C]{Config: cfg, Client: &http.Client{Transport: transport}, Redact: Redactor{Key: key}}
	}
	c.mu.Lock()
	old := c.gen
	c.gen = gen
	c.mu.Unlock()
	if old != nil {
		old.Client.CloseIdleConnections()
	}
}

// Stream runs one streaming call of the provider named name on the current
// generation: before a valid Configure it fails with invalid_request, and
// every error the call returns comes back as an *sdk.Error scrubbed of the
// generation's key, logged at debug with the model's id.
func (c *Current[C]) Stream(name string, logger hclog.Logger, model string, run func(*Generation[C]) error) error {
	gen := c.Get()
	if gen == nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "%s: the provider has no valid configuration: Configure it first", name)
	}
	err := run(gen)
	if err == nil {
		return nil
	}
	e := sdk.AsError(err)
	out := &sdk.Error{Kind: e.Kind, Message: gen.Redact.Redact(e.Message), RetryAfter: e.RetryAfter}
	logger.Debug("stream failed", "model", model, "kind", string(out.Kind), "error", out.Message)
	return out
}
