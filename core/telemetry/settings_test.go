package telemetry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-agent/harness/core/config"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	block := &config.Telemetry{Endpoint: "http://collector:4318", Headers: map[string]string{"k": "v"}, ServiceName: "agents"}
	for name, tc := range map[string]struct {
		block *config.Telemetry
		env   map[string]string
		want  Settings
		on    bool
		err   string
	}{
		"off by default":           {},
		"a block without endpoint": {block: &config.Telemetry{Content: true}},
		"env endpoint":             {env: map[string]string{EnvEndpoint: "http://c:4318"}, on: true, want: Settings{Protocol: config.ProtocolHTTP}},
		"traces endpoint, grpc": {env: map[string]string{EnvTracesEndpoint: "http://c:4317", EnvProtocol: "grpc"}, on: true,
			want: Settings{Protocol: config.ProtocolGRPC}},
		"traces protocol first": {env: map[string]string{EnvEndpoint: "http://c", EnvProtocol: "grpc", EnvTracesProtocol: "http/protobuf"}, on: true,
			want: Settings{Protocol: config.ProtocolHTTP}},
		"block": {block: block, on: true,
			want: Settings{Endpoint: "http://collector:4318", Protocol: config.ProtocolHTTP, Headers: map[string]string{"k": "v"}, ServiceName: "agents"}},
		"block protocol wins": {block: &config.Telemetry{Endpoint: "http://c:4317", Protocol: "grpc"}, env: map[string]string{EnvProtocol: "http/protobuf"}, on: true,
			want: Settings{Endpoint: "http://c:4317", Protocol: config.ProtocolGRPC}},
		"semconv content opt-in": {env: map[string]string{EnvEndpoint: "http://c", EnvCaptureContent: "true"}, on: true,
			want: Settings{Protocol: config.ProtocolHTTP, Content: true}},
		"sdk disabled":       {block: block, env: map[string]string{EnvSDKDisabled: "true"}},
		"unknown protocol":   {env: map[string]string{EnvEndpoint: "http://c", EnvProtocol: "http/json"}, err: `OTEL_EXPORTER_OTLP_PROTOCOL="http/json" is not a protocol`},
		"unknown per signal": {env: map[string]string{EnvEndpoint: "http://c", EnvTracesProtocol: "thrift"}, err: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, on, err := Resolve(tc.block, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || on != tc.on {
				t.Fatalf("on %v, err %v; want on %v", on, err, tc.on)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("settings (-want +got):\n%s", d)
			}
		})
	}
}
