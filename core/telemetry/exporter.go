package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
)

// Options complete Settings with what only the caller knows.
type Options struct {
	Version string // service.version
	// Models maps a model binding name to its provider system (gen_ai.system:
	// "openai", "deepseek", …) and the model id it requests.
	Models func(binding string) (system, id string)
	// Warn reports export problems the SDK meets in the background.
	Warn func(error)
}

// Exporter is a running export: Wrap feeds it a run's events, and
// Shutdown flushes what is buffered.
type Exporter struct {
	obs     *Observer
	traces  *sdktrace.TracerProvider
	metrics *sdkmetric.MeterProvider

	mu       sync.Mutex
	firstErr error
	target   string
}

// Start sets up the OTLP exporters of s. Nothing is sent before the first
// span ends; Shutdown must be called on every exit path.
func Start(ctx context.Context, s Settings, opts Options) (*Exporter, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "harness"), attribute.String("service.version", opts.Version)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
		resource.WithTelemetrySDK(),
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	if s.ServiceName != "" {
		res, _ = resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", s.ServiceName)))
	}
	spans, points, err := exporters(ctx, s)
	if err != nil {
		return nil, err
	}
	e := &Exporter{target: describe(s)}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(e.warn(opts.Warn)))
	e.traces = sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
	e.metrics = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(points)), sdkmetric.WithResource(res))
	e.obs = NewObserver(e.traces.Tracer(scope), e.metrics.Meter(scope), s.Content, opts.Models)
	return e, nil
}

const scope = "github.com/harness-agent/harness"

func exporters(ctx context.Context, s Settings) (sdktrace.SpanExporter, sdkmetric.Exporter, error) {
	var (
		spans  sdktrace.SpanExporter
		points sdkmetric.Exporter
		err    error
	)
	switch s.Protocol {
	case config.ProtocolGRPC:
		var to []otlptracegrpc.Option
		var mo []otlpmetricgrpc.Option
		if s.Endpoint != "" {
			to = append(to, otlptracegrpc.WithEndpointURL(s.Endpoint))
			mo = append(mo, otlpmetricgrpc.WithEndpointURL(s.Endpoint))
		}
		if len(s.Headers) > 0 {
			to = append(to, otlptracegrpc.WithHeaders(s.Headers))
			mo = append(mo, otlpmetricgrpc.WithHeaders(s.Headers))
		}
		if spans, err = otlptracegrpc.New(ctx, to...); err == nil {
			points, err = otlpmetricgrpc.New(ctx, mo...)
		}
	default:
		var to []otlptracehttp.Option
		var mo []otlpmetrichttp.Option
		if s.Endpoint != "" {
			base := strings.TrimRight(s.Endpoint, "/")
			to = append(to, otlptracehttp.WithEndpointURL(base+"/v1/traces"))
			mo = append(mo, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"))
		}
		if len(s.Headers) > 0 {
			to = append(to, otlptracehttp.WithHeaders(s.Headers))
			mo = append(mo, otlpmetrichttp.WithHeaders(s.Headers))
		}
		if spans, err = otlptracehttp.New(ctx, to...); err == nil {
			points, err = otlpmetrichttp.New(ctx, mo...)
		}
	}
	if err != nil {
		if spans != nil {
			_ = spans.Shutdown(ctx)
		}
		return nil, nil, fmt.Errorf("telemetry: OTLP exporter (%s): %w", describe(s), err)
	}
	return spans, points, nil
}

// describe names the collector for messages: the URL and where it came from.
func describe(s Settings) string {
	if s.Endpoint != "" {
		return s.Endpoint + " (" + s.Protocol + ", telemetry block)"
	}
	for _, name := range []string{EnvTracesEndpoint, EnvEndpoint} {
		if v := os.Getenv(name); v != "" {
			return v + " (" + s.Protocol + ", " + name + ")"
		}
	}
	return "the OTLP endpoint (" + s.Protocol + ")"
}

// warn keeps the first background export error for Shutdown to report.
func (e *Exporter) warn(also func(error)) func(error) {
	return func(err error) {
		e.mu.Lock()
		if e.firstErr == nil {
			e.firstErr = err
		}
		e.mu.Unlock()
		if also != nil {
			also(err)
		}
	}
}

// Wrap returns a sink that exports each event and then hands it to next;
// on a nil Exporter (telemetry off) it is next itself.
func (e *Exporter) Wrap(next func(session.Event)) func(session.Event) {
	if e == nil {
		return next
	}
	return e.obs.Wrap(next)
}

// Shutdown ends the spans still open (a run that stopped without
// session.ended), exports what is buffered and stops the exporters, within
// a few seconds. It is safe on a nil Exporter and reports the first export
// problem met during the run.
func (e *Exporter) Shutdown(ctx context.Context) error {
	if e == nil {
		return nil
	}
	e.obs.Close(time.Now())
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := errors.Join(e.traces.Shutdown(ctx), e.metrics.Shutdown(ctx))
	e.mu.Lock()
	if err == nil {
		err = e.firstErr
	}
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("telemetry: export to %s: %w", e.target, err)
	}
	return nil
}
