package deepseek

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/sdk"
)

// New returns the DeepSeek provider. Serve it with sdk.ServeProvider.
func New() sdk.Provider { return newProvider(sdk.Logger().Named("deepseek")) }

// provider holds the current adapter generation: what one Configure call
// set up. Streams already running keep the generation they started with.
type provider struct {
	logger hclog.Logger
	gen    providerkit.Current[config]
	bodies bodyCache // the last request's messages, encoded
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
		"require_done", cfg.requireDone, "has_key", cfg.apiKey != "", "headers", len(cfg.headers))
	return nil
}

// Models implements sdk.Provider: the built-in metadata of the models this
// adapter knows.
func (p *provider) Models(context.Context) ([]sdk.ModelInfo, error) {
	out := make([]sdk.ModelInfo, len(builtinModels))
	for i, m := range builtinModels {
		if m.Pricing != nil {
			pricing := *m.Pricing
			m.Pricing = &pricing
		}
		out[i] = m
	}
	return out, nil
}

// Stream implements sdk.Provider. Every error it returns is an *sdk.Error
// whose message has been scrubbed of the API key.
func (p *provider) Stream(ctx context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	return p.gen.Stream("deepseek", p.logger, req.Model.ID, func(gen *generation) error {
		return (&call{gen: gen, logger: p.logger, req: req, emit: emit, bodies: &p.bodies}).run(ctx)
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
