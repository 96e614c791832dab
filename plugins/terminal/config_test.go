package terminal

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	tests := []struct {
		json string
		want config
		err  string
	}{
		{json: ``, want: config{workspace: ws, timeout: 120, maxTimeout: 600, sandbox: "workspace-write"}},
		{json: `{}`, want: config{workspace: ws, timeout: 120, maxTimeout: 600, sandbox: "workspace-write"}},
		{json: `{"timeout_seconds": 1.5, "max_timeout_seconds": 30, "sandbox": "off", "network": true}`,
			want: config{workspace: ws, timeout: 1.5, maxTimeout: 30, sandbox: "off", network: true}},
		{json: `{"timeout_seconds": 700}`, err: "timeout_seconds (700s) must not exceed max_timeout_seconds (600s)"},
		{json: `{"timeout_seconds": 0}`, err: "timeout_seconds must be positive"},
		{json: `{"max_timeout_seconds": -1}`, err: "max_timeout_seconds must be positive"},
		{json: `{"sandbox": "strict"}`, err: `sandbox must be "off" or "workspace-write", not "strict"`},
		{json: `{"timeout": 5}`, err: `unknown field "timeout"`},
	}
	for _, tt := range tests {
		got, err := parseConfig(sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(tt.json)})
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || sdk.KindOf(err) != sdk.KindInvalidRequest {
				t.Errorf("%s: err = %v, want %q", tt.json, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.json, err)
		case !reflect.DeepEqual(got, tt.want):
			t.Errorf("%s: got %+v, want %+v", tt.json, got, tt.want)
		}
	}
}

func TestParseConfigWorkspace(t *testing.T) {
	t.Parallel()
	for _, ws := range []string{"", "/nonexistent/terminal-test"} {
		if _, err := parseConfig(sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(`{}`)}); err == nil {
			t.Errorf("workspace %q accepted", ws)
		}
	}
}

func TestConfigSchemaIsJSON(t *testing.T) {
	t.Parallel()
	var doc struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(configSchema(), &doc); err != nil || len(doc.Properties) != 4 {
		t.Errorf("config schema %s: %v", configSchema(), err)
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]time.Duration{1: time.Second, 0.25: 250 * time.Millisecond, 1e300: math.MaxInt64} {
		if got := duration(in); got != want {
			t.Errorf("duration(%g) = %v, want %v", in, got, want)
		}
	}
}
