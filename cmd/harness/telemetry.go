package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/telemetry"
)

// startTelemetry starts OpenTelemetry export when the configuration's
// telemetry block or OTEL_EXPORTER_OTLP_ENDPOINT asks for it; nil (and
// nothing started) otherwise.
func (c *cli) startTelemetry(ctx context.Context, cfg *config.Config) (*telemetry.Exporter, error) {
	s, on, err := telemetry.Resolve(cfg.Telemetry, os.Getenv)
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	if !on {
		return nil, nil
	}
	e, err := telemetry.Start(ctx, s, telemetry.Options{
		Version: version,
		Models:  modelSystems(cfg),
		Warn:    func(err error) { c.logger.Warn("telemetry export", "error", err) },
	})
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	return e, nil
}

// stopTelemetry flushes the export; a collector that cannot be reached
// costs a note, never the run's exit status.
func (c *cli) stopTelemetry(ctx context.Context, e *telemetry.Exporter) {
	if err := e.Shutdown(ctx); err != nil {
		fmt.Fprintf(c.stderr, "harness: %v\n", err)
	}
}

// modelSystems maps a model binding to the provider it is served by (the
// gen_ai.system of its provider plugin: provider-deepseek is "deepseek")
// and the model id it requests.
func modelSystems(cfg *config.Config) func(string) (string, string) {
	return func(name string) (string, string) {
		m := cfg.Model(name)
		if m == nil {
			return "", name
		}
		system := ""
		if p := cfg.Provider(m.Provider); p != nil {
			system = strings.TrimPrefix(p.Plugin, "provider-")
		}
		return system, m.ID
	}
}
