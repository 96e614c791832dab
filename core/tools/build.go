package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/core/catalog"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
)

// terminalGrace is added to a command's own timeout, so that the terminal
// plugin stops the command (and reports its output) before the call's
// deadline cuts the plugin off.
const terminalGrace = 10 * time.Second

// Setup is what Build needs: the configuration, the agent that runs and the
// catalog of the configuration's plugins.
type Setup struct {
	Config  *config.Config
	Agent   *config.Agent
	Catalog *catalog.Catalog
	Logger  hclog.Logger
	// Protected are the absolute paths every tool plugin is told it must
	// never modify (sdk.PluginConfig.Protected).
	Protected []string
}

// Build returns a registry holding emit_artifact and every tool of the
// catalog's tool plugins, and configures the plugins that offer the agent's
// whitelisted tools (workspace, decoded config block; the built-in terminal
// gets the agent's terminal timeouts and sandbox). MCP tools are added by
// the MCP bridge. A whitelisted tool that no plugin offers is an error that
// says which plugins could not be asked.
func Build(ctx context.Context, s Setup) (*Registry, error) {
	log := s.Logger
	if log == nil {
		log = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	reg := NewRegistry()
	if err := reg.Add(EmitArtifact()); err != nil {
		return nil, err
	}
	wanted := pluginTools(s.Config, s.Agent.Tools)
	if len(wanted) == 0 {
		return reg, nil
	}
	// Only the plugins that may offer the agent's tools start; failures are
	// kept per plugin and reported below if they matter.
	_ = s.Catalog.DescribeFor(ctx, wanted)

	var errs []error
	owners := map[string]bool{}
	for _, p := range s.Catalog.Plugins() {
		if p.Spec.Kind != sdk.PluginTool || p.Err != nil || p.Info.Name == "" {
			continue
		}
		handle, err := s.Catalog.Host().Tool(p.Spec.Name)
		if err != nil {
			return nil, err
		}
		for _, spec := range p.Info.Tools {
			t := Tool{Spec: spec, Origin: OriginPlugin, Owner: p.Spec.Name, Source: handle}
			if p.Spec.Builtin {
				t.Origin = OriginBuiltin
			} else if blk := s.Config.Plugin(p.Spec.Name); blk != nil {
				t.Approval = blk.Approval
				t.Timeout = FixedTimeout(blk.Timeout)
			}
			if t.Origin == OriginBuiltin && spec.Name == config.TerminalTool {
				t.Timeout = terminalTimeout(s.Agent.Permissions)
			}
			err := reg.Add(t)
			switch {
			case err != nil && slices.Contains(wanted, spec.Name):
				errs = append(errs, err)
			case err != nil:
				log.Warn("tool left out of the registry", "plugin", p.Spec.Name, "tool", spec.Name, "error", err)
			case slices.Contains(wanted, spec.Name):
				owners[p.Spec.Name] = true
			}
		}
	}
	for _, p := range s.Catalog.Plugins() {
		if !owners[p.Spec.Name] {
			continue
		}
		if err := configure(ctx, s, p); err != nil {
			errs = append(errs, err)
		}
	}
	if missing := missingTools(reg, wanted); len(missing) > 0 {
		errs = append(errs, fmt.Errorf("agent %q: no plugin offers %s%s", s.Agent.Name, strings.Join(missing, ", "), describeFailures(s.Catalog)))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return reg, nil
}

// pluginTools are the whitelisted tools that a plugin must offer: neither
// the core's own nor an MCP server's.
func pluginTools(cfg *config.Config, whitelist []string) []string {
	var out []string
	for _, t := range whitelist {
		if cfg.FromPlugin(t) {
			out = append(out, t)
		}
	}
	return out
}

func missingTools(reg *Registry, wanted []string) []string {
	var missing []string
	for _, t := range wanted {
		if _, ok := reg.Tool(t); !ok {
			missing = append(missing, fmt.Sprintf("%q", t))
		}
	}
	return missing
}

func describeFailures(cat *catalog.Catalog) string {
	var b strings.Builder
	for _, p := range cat.Plugins() {
		if p.Spec.Kind == sdk.PluginTool && p.Err != nil {
			fmt.Fprintf(&b, "; plugin %q could not be asked: %v", p.Spec.Name, p.Err)
		}
	}
	return b.String()
}

// configure sends a plugin its workspace and configuration. A third-party
// plugin's answer is awaited, so a plugin that refuses its config block
// fails the run's setup; a built-in (whose configuration the harness makes
// itself) is not waited for: its first call follows the Configure at once
// and would fail with its refusal (pluginhost.ToolHandle.Configure).
func configure(ctx context.Context, s Setup, p catalog.Plugin) error {
	raw, err := pluginConfig(s, p)
	if err != nil {
		return err
	}
	handle, err := s.Catalog.Host().Tool(p.Spec.Name)
	if err != nil {
		return err
	}
	err = handle.Configure(ctx, sdk.PluginConfig{Workspace: s.Config.Workspace, Config: raw, Protected: s.Protected})
	if err == nil && !p.Spec.Builtin {
		err = handle.Configured(ctx)
	}
	if err != nil {
		return fmt.Errorf("plugin %q refused its configuration: %w", p.Spec.Name, err)
	}
	return nil
}

// pluginConfig is a plugin's configuration as JSON: a third-party plugin's
// config block decoded against its schema; for the built-in terminal the
// agent's terminal permissions.
func pluginConfig(s Setup, p catalog.Plugin) (json.RawMessage, error) {
	if p.Spec.Builtin {
		if !slices.ContainsFunc(p.Info.Tools, func(t sdk.ToolSpec) bool { return t.Name == config.TerminalTool }) {
			return json.RawMessage("{}"), nil
		}
		perm := s.Agent.Permissions
		return json.Marshal(map[string]any{
			"timeout_seconds":     perm.TerminalTimeout.Seconds(),
			"max_timeout_seconds": perm.TerminalMaxTimeout.Seconds(),
			"sandbox":             perm.Sandbox,
			"network":             perm.Network,
		})
	}
	blk := s.Config.Plugin(p.Spec.Name)
	if blk == nil || p.Info.ConfigSchema == nil {
		return json.RawMessage("{}"), nil
	}
	raw, diags := config.DecodePluginConfig(blk.Config, p.Info.ConfigSchema)
	if diags.HasErrors() {
		return nil, fmt.Errorf("plugin %q: its config block does not fit its schema: %s", p.Spec.Name, diags.Error())
	}
	return raw, nil
}

// FixedTimeout is a Tool.Timeout that gives every call d (the timeout of
// a plugin or mcp block), or nil (the executor's default) for 0.
func FixedTimeout(d time.Duration) func(json.RawMessage) time.Duration {
	if d <= 0 {
		return nil
	}
	return func(json.RawMessage) time.Duration { return d }
}

// terminalTimeout is the deadline of a terminal call: the command's
// timeout_seconds (capped by terminal_max_timeout) or terminal_timeout,
// plus a grace period.
func terminalTimeout(perm config.Permissions) func(json.RawMessage) time.Duration {
	return func(args json.RawMessage) time.Duration {
		var a struct {
			TimeoutSeconds float64 `json:"timeout_seconds"`
		}
		d := perm.TerminalTimeout
		if json.Unmarshal(args, &a) == nil && a.TimeoutSeconds > 0 {
			secs := math.Min(a.TimeoutSeconds, perm.TerminalMaxTimeout.Seconds())
			d = time.Duration(secs * float64(time.Second))
		}
		if d <= 0 {
			return 0
		}
		return d + terminalGrace
	}
}

// PluginHooks subscribes the configuration's hook plugins to the tool
// phases their blocks name, each call bounded by the block's timeout. The
// plugins start on first use, within that timeout; warm them with
// pluginhost.Host.Warm to keep their start out of it.
func PluginHooks(cfg *config.Config, host *pluginhost.Host) ([]Hook, error) {
	var hooks []Hook
	for _, h := range cfg.Hooks {
		phases := slices.DeleteFunc(slices.Clone(h.Phases), func(p string) bool { return !sdk.IsToolPhase(p) })
		if len(phases) == 0 {
			continue
		}
		handle, err := host.Hook(h.Name)
		if err != nil {
			return nil, err
		}
		hooks = append(hooks, PluginHook(h.Name, handle, phases, h.Timeout))
	}
	return hooks, nil
}
