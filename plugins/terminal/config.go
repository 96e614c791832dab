package terminal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

// Sandbox modes of the plugin config's "sandbox" attribute.
const (
	sandboxOff            = "off"
	sandboxWorkspaceWrite = "workspace-write"
)

const (
	defaultTimeoutSeconds    = 120
	defaultMaxTimeoutSeconds = 600
)

// configSchema is the JSON Schema of the plugin's HCL config block, built on
// first use: every process of the harness binary initializes this package.
var configSchema = sync.OnceValue(func() json.RawMessage {
	return schema.Object(
		schema.Number("timeout_seconds", "Timeout of a command that does not ask for one, in seconds.").
			Min(1).Default(defaultTimeoutSeconds),
		schema.Number("max_timeout_seconds", "Largest timeout a command may ask for, in seconds; larger requests are clamped.").
			Min(1).Default(defaultMaxTimeoutSeconds),
		schema.String("sandbox", `"workspace-write" (the default) runs each command in a sandbox: it writes only in the workspace (minus protected paths), `+
			`a private temp dir and harmless devices, sees only its own processes, reaches no UNIX socket and no network unless "network" is true `+
			`(Linux namespaces, Landlock, seccomp); "off" does not restrict commands.`).
			Enum(sandboxOff, sandboxWorkspaceWrite).Default(sandboxWorkspaceWrite),
		schema.Boolean("network", "Whether sandboxed commands may use the network; without it they get a network of their own with only loopback.").
			Default(false),
	).JSON()
})

// config is the plugin's configuration after Configure.
type config struct {
	workspace  string
	timeout    float64 // seconds
	maxTimeout float64 // seconds
	sandbox    string
	network    bool     // sandboxed commands keep the network
	protected  []string // absolute paths commands must not modify (the host's list)
}

func defaultConfig() config {
	return config{timeout: defaultTimeoutSeconds, maxTimeout: defaultMaxTimeoutSeconds, sandbox: sandboxWorkspaceWrite}
}

// parseConfig checks what the host sends. The host validates the block
// against configSchema already; this guards the plugin used without it.
func parseConfig(pc sdk.PluginConfig) (config, error) {
	cfg := defaultConfig()
	var raw struct {
		Timeout    *float64 `json:"timeout_seconds"`
		MaxTimeout *float64 `json:"max_timeout_seconds"`
		Sandbox    *string  `json:"sandbox"`
		Network    *bool    `json:"network"`
	}
	if len(bytes.TrimSpace(pc.Config)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(pc.Config))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&raw); err != nil {
			return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: %v", err)
		}
	}
	if raw.Timeout != nil {
		cfg.timeout = *raw.Timeout
	}
	if raw.MaxTimeout != nil {
		cfg.maxTimeout = *raw.MaxTimeout
	}
	if raw.Sandbox != nil {
		cfg.sandbox = *raw.Sandbox
	}
	if raw.Network != nil {
		cfg.network = *raw.Network
	}
	switch {
	case cfg.timeout <= 0:
		return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: timeout_seconds must be positive, not %s", seconds(cfg.timeout))
	case cfg.maxTimeout <= 0:
		return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: max_timeout_seconds must be positive, not %s", seconds(cfg.maxTimeout))
	case cfg.timeout > cfg.maxTimeout:
		return config{}, sdk.Errorf(sdk.KindInvalidRequest,
			"terminal config: timeout_seconds (%s) must not exceed max_timeout_seconds (%s)", seconds(cfg.timeout), seconds(cfg.maxTimeout))
	case cfg.sandbox != sandboxOff && cfg.sandbox != sandboxWorkspaceWrite:
		return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: sandbox must be %q or %q, not %q", sandboxOff, sandboxWorkspaceWrite, cfg.sandbox)
	}

	if pc.Workspace == "" {
		return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: no workspace given")
	}
	ws, err := filepath.Abs(pc.Workspace)
	if err != nil {
		return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: workspace %q: %v", pc.Workspace, err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: workspace %s is not a directory", ws)
	}
	cfg.workspace = ws
	for _, p := range pc.Protected {
		if !filepath.IsAbs(p) {
			return config{}, sdk.Errorf(sdk.KindInvalidRequest, "terminal config: protected path %q is not absolute", p)
		}
		cfg.protected = append(cfg.protected, filepath.Clean(p))
	}
	return cfg, nil
}

// seconds formats a number of seconds the way a person writes it: 2s, 1.5s.
func seconds(s float64) string {
	return fmt.Sprintf("%gs", s)
}
