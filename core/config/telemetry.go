package config

import (
	"net/url"

	"github.com/hashicorp/hcl/v2"
)

const blockTelemetry = "telemetry"

// Telemetry is the telemetry block: where runs export OpenTelemetry traces
// and metrics (core/telemetry). Each attribute left unset falls back to the
// standard OTEL_* environment variables; without a block, those variables
// alone turn export on.
type Telemetry struct {
	// Endpoint is the OTLP base URL (http://host:4318, http://host:4317 for
	// grpc); "" leaves it to OTEL_EXPORTER_OTLP_ENDPOINT.
	Endpoint string
	// Protocol is "grpc" or "http/protobuf"; "" leaves it to
	// OTEL_EXPORTER_OTLP_PROTOCOL (default http/protobuf).
	Protocol string
	// Headers go with every export (an api key through env()).
	Headers map[string]string
	// Content exports prompt, model and tool text; off by default.
	Content bool
	// ServiceName is the service.name resource; "" is OTEL_SERVICE_NAME, else "harness".
	ServiceName string
	DeclRange   hcl.Range
}

// Telemetry protocols.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

var telemetrySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "endpoint"},
		{Name: "protocol"},
		{Name: "headers"},
		{Name: "content"},
		{Name: "service_name"},
	},
}

func (l *loader) decodeTelemetry(items []item) {
	it, ok := l.singleItem(items)
	if !ok {
		return
	}
	b := it.block
	t := &Telemetry{DeclRange: b.DefRange}
	a := l.attrs(it.src, l.content(b.Body, telemetrySchema).Attributes)
	if a.nonEmptyStr("endpoint", &t.Endpoint) {
		if u, err := url.Parse(t.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			a.errorf(a.rangeOf("endpoint"), "Invalid telemetry endpoint",
				"endpoint must be an http:// or https:// URL with a host, such as \"http://localhost:4318\"; got %q.", t.Endpoint)
			t.Endpoint = ""
		}
	}
	a.enum("protocol", &t.Protocol, ProtocolGRPC, ProtocolHTTP)
	if h, ok := a.strMap("headers"); ok {
		t.Headers = h
	}
	a.boolean("content", &t.Content)
	a.nonEmptyStr("service_name", &t.ServiceName)
	l.cfg.Telemetry = t
}
