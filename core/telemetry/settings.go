package telemetry

import (
	"fmt"
	"strings"

	"github.com/harness-agent/harness/core/config"
)

// Settings say where and what to export: the telemetry block's values,
// completed from the standard OTEL_* environment variables.
type Settings struct {
	// Endpoint is the OTLP base URL from the telemetry block; "" leaves the
	// exporters to read OTEL_EXPORTER_OTLP_[TRACES_|METRICS_]ENDPOINT.
	Endpoint string
	Protocol string // config.ProtocolGRPC or config.ProtocolHTTP
	Headers  map[string]string
	// Content exports prompt, model and tool text.
	Content     bool
	ServiceName string // "" leaves it to OTEL_SERVICE_NAME, else "harness"
}

// Environment variables of the OpenTelemetry specification that decide
// whether and how harness exports.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvCaptureContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
)

// Resolve decides whether a run exports, and how. It returns ok false when
// neither the block nor the environment names an endpoint, or when
// OTEL_SDK_DISABLED=true; an error for a protocol it cannot speak.
func Resolve(block *config.Telemetry, getenv func(string) string) (s Settings, ok bool, err error) {
	if strings.EqualFold(getenv(EnvSDKDisabled), "true") {
		return Settings{}, false, nil
	}
	if block != nil {
		s = Settings{Endpoint: block.Endpoint, Protocol: block.Protocol, Headers: block.Headers,
			Content: block.Content, ServiceName: block.ServiceName}
	}
	if s.Endpoint == "" && getenv(EnvEndpoint) == "" && getenv(EnvTracesEndpoint) == "" {
		return Settings{}, false, nil
	}
	if s.Protocol == "" {
		s.Protocol = firstSet(getenv, EnvTracesProtocol, EnvProtocol)
		switch s.Protocol {
		case "":
			s.Protocol = config.ProtocolHTTP // the specification's default
		case config.ProtocolGRPC, config.ProtocolHTTP:
		default:
			return Settings{}, false, fmt.Errorf("telemetry: %s=%q is not a protocol harness exports with: use %q or %q",
				protocolVar(getenv), s.Protocol, config.ProtocolGRPC, config.ProtocolHTTP)
		}
	}
	if !s.Content {
		s.Content = strings.EqualFold(getenv(EnvCaptureContent), "true")
	}
	return s, true, nil
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func protocolVar(getenv func(string) string) string {
	if getenv(EnvTracesProtocol) != "" {
		return EnvTracesProtocol
	}
	return EnvProtocol
}
