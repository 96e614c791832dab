package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestTelemetryBlock(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		hcl  string
		want *Telemetry
	}{
		"absent": {hcl: "", want: nil},
		"empty":  {hcl: "telemetry {}\n", want: &Telemetry{}},
		"full": {
			hcl: `telemetry {
  endpoint     = "https://otel.example.com:4318"
  protocol     = "grpc"
  headers      = { authorization = "Bearer ${env("OTEL_TOKEN")}" }
  content      = true
  service_name = "agents"
}
`,
			want: &Telemetry{Endpoint: "https://otel.example.com:4318", Protocol: ProtocolGRPC,
				Headers: map[string]string{"authorization": "Bearer tok"}, Content: true, ServiceName: "agents"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "agent.hcl")
			src := "provider \"p\" {}\nmodel \"m\" { provider = \"p\" }\nagent \"a\" { model = \"m\" }\n" + tc.hcl
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, diags := load(path, func(k string) string { return map[string]string{"OTEL_TOKEN": "tok"}[k] }, testOptions)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if d := cmp.Diff(tc.want, cfg.Telemetry, cmpopts.IgnoreFields(Telemetry{}, "DeclRange")); d != "" {
				t.Errorf("telemetry (-want +got):\n%s", d)
			}
		})
	}
}
