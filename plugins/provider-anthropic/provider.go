package anthropic

import (
	"context"
	"encoding/json"

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
	gen    providerkit.Current[config]
}

// generation is one configuration and the HTTP client built for it.
type generation = providerkit.Generation[config]

func newProvider(logger hclog.Logger) *provider { return &provider{logger: logger} }

// Configure implements sdk.Provider.
func (p *provider) Configure(_ context.Context, raw json.RawMessage) error {
	cfg, err := parseConfig(raw)
	if err != nil {
		p.gen.Replace(nil, "")
		return err
	}
	p.gen.Replace(cfg, cfg.apiKey)
	p.logger.Debug("configured", "endpoint", cfg.shown, "first_token", cfg.firstToken, "idle", cfg.idle,
		"has_key", cfg.apiKey != "", "headers", len(cfg.headers))
	return nil
}

// Models implements sdk.Provider: the built-in metadata, and, once
// configured with a key, the models GET /v1/models lists (see models.go).
func (p *provider) Models(ctx context.Context) ([]sdk.ModelInfo, error) {
	out := builtinList()
	gen := p.gen.Get()
	if gen == nil || gen.Config.apiKey == "" {
		return out, nil
	}
	ids, err := listModels(ctx, gen)
	if err != nil {
		// The built-in list still serves: a run reports a bad key on its
		// first request, with the same message.
		p.logger.Debug("listing models failed; using the built-in list", "error", gen.Redact.Redact(err.Error()))
		return out, nil
	}
	return mergeListed(out, ids), nil
}

// Stream implements sdk.Provider. Every error it returns is an *sdk.Error
// whose message has been scrubbed of the API key.
func (p *provider) Stream(ctx context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	return p.gen.Stream("anthropic", p.logger, req.Model.ID, func(gen *generation) error {
		return (&call{gen: gen, logger: p.logger, req: req, emit: emit}).run(ctx)
	})
}

// SettingsSchema implements sdk.ProviderDescriber: the attributes of the
// provider block besides "plugin" (providerkit.HTTPSettingsSchema).
func (p *provider) SettingsSchema(context.Context) (json.RawMessage, error) {
	return providerkit.HTTPSettingsSchema(defaultBaseURL), nil
}

var (
	_ sdk.Provider          = (*provider)(nil)
	_ sdk.ProviderDescriber = (*provider)(nil)
)
