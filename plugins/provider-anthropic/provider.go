package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/sdk"
)

// New returns the Anthropic provider. Serve it with sdk.ServeProvider.
func New() sdk.Provider { return NewWithLogger(sdk.Logger().Named("anthropic")) }

// NewWithLogger returns the provider logging to logger (tests check that
// no log line holds the key).
func NewWithLogger(logger hclog.Logger) sdk.Provider { return newProvider(logger) }

// provider holds the current adapter generation: what one Configure call
// set up. Streams already running keep the generation they started with.
type provider struct {
	logger hclog.Logger

	mu  sync.Mutex
	gen *generation
}

// generation is one configuration and the HTTP client built for it.
type generation struct {
	cfg    *config
	client *http.Client
	redact providerkit.Redactor
}

func newProvider(logger hclog.Logger) *provider { return &provider{logger: logger} }

func (p *provider) current() *generation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen
}

// Configure implements sdk.Provider.
func (p *provider) Configure(_ context.Context, raw json.RawMessage) error {
	cfg, err := parseConfig(raw)
	p.mu.Lock()
	old := p.gen
	p.gen = nil
	if err == nil {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		p.gen = &generation{cfg: cfg, client: &http.Client{Transport: transport}, redact: providerkit.Redactor{Key: cfg.apiKey}}
	}
	p.mu.Unlock()
	if old != nil {
		old.client.CloseIdleConnections()
	}
	if err != nil {
		return err
	}
	p.logger.Debug("configured", "endpoint", cfg.shown, "first_token", cfg.firstToken, "idle", cfg.idle,
		"has_key", cfg.apiKey != "", "headers", len(cfg.headers))
	return nil
}

// Models implements sdk.Provider: the built-in metadata, and, once
// configured with a key, the models GET /v1/models lists (see models.go).
func (p *provider) Models(ctx context.Context) ([]sdk.ModelInfo, error) {
	out := builtinList()
	gen := p.current()
	if gen == nil || gen.cfg.apiKey == "" {
		return out, nil
	}
	ids, err := gen.listModels(ctx)
	if err != nil {
		// The built-in list still serves: a run reports a bad key on its
		// first request, with the same message.
		p.logger.Debug("listing models failed; using the built-in list", "error", gen.redact.Redact(err.Error()))
		return out, nil
	}
	return mergeListed(out, ids), nil
}

// Stream implements sdk.Provider. Every error it returns is an *sdk.Error
// whose message has been scrubbed of the API key.
func (p *provider) Stream(ctx context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	gen := p.current()
	if gen == nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "anthropic: the provider has no valid configuration: Configure it first")
	}
	err := (&call{gen: gen, logger: p.logger, req: req, emit: emit}).run(ctx)
	if err == nil {
		return nil
	}
	e := sdk.AsError(err)
	out := &sdk.Error{Kind: e.Kind, Message: gen.redact.Redact(e.Message), RetryAfter: e.RetryAfter}
	p.logger.Debug("stream failed", "model", req.Model.ID, "kind", string(out.Kind), "error", out.Message)
	return out
}

var _ sdk.Provider = (*provider)(nil)
