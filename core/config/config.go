package config

import (
	"encoding/json"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Names and defaults that users and other packages depend on.
const (
	// LockFileName is the lock file written by `harness plugins lock`, next to the configuration.
	LockFileName = ".harness.lock.hcl"
	// DefaultProviderPlugin is the plugin of a provider block without a plugin attribute.
	DefaultProviderPlugin = "provider-deepseek"
	// DefaultSummarizerAgent is the agent that writes context summaries when an agent names none.
	DefaultSummarizerAgent = "context-manager"
	// EmitArtifactTool is the core's own tool: it is always known.
	EmitArtifactTool = "emit_artifact"
	// Built-in tools the core treats apart by name: approvals (core/approval),
	// the terminal's deadline (core/tools) and the system prompt (core/prompt).
	TerminalTool  = "terminal"
	WriteFileTool = "write_file"
	EditFileTool  = "edit_file"
)

// Approval and terminal policies (plugin.approval, mcp.approval, permissions.terminal).
const (
	PolicyAllow = "allow"
	PolicyAsk   = "ask"
	PolicyDeny  = "deny"
)

// What happens when an approval is needed and nobody can answer (permissions.unattended).
const (
	UnattendedDeny  = "deny"
	UnattendedDefer = "defer"
)

// Sandbox modes (permissions.sandbox).
const (
	SandboxOff            = "off"
	SandboxWorkspaceWrite = "workspace-write"
)

// Config is a decoded configuration: what the files say, with defaults applied and
// paths made absolute. It holds secrets (api keys read with env()): never persist it.
type Config struct {
	Path      string // absolute path of the file or directory loaded
	Dir       string // absolute directory holding the configuration and its lock file
	Workspace string // absolute root of every file tool; default Dir

	Providers  []*Provider
	Models     []*Model
	Plugins    []*Plugin
	Hooks      []*Hook
	MCPServers []*MCPServer
	Agents     []*Agent
	Telemetry  *Telemetry // nil without a telemetry block
	Engine     *Engine    // nil without an engine block

	// Files maps each diagnostic filename to its parsed file, for source snippets.
	Files map[string]*hcl.File
	// Inputs are the other files the configuration reads when it loads, by
	// absolute path: file() targets (a system prompt, a persona) and the
	// scripted provider's script. They shape the next run as much as the
	// configuration itself, so they are protected paths and part of the
	// Fingerprint. The value is the file's content when it was read.
	Inputs map[string][]byte
}

// Provider is a provider block: how to reach an LLM endpoint through a provider plugin.
type Provider struct {
	Name   string
	Plugin string // built-in plugin name or a plugin block's name; default DefaultProviderPlugin
	// APIKey is the api_key attribute, read by the host for what it owns:
	// the missing-key check (CheckAPIKeys), the warning about a key written
	// out, and redaction. The plugin gets it among its settings.
	APIKey string
	// Config is what a built-in provider's Configure gets: the block's
	// settings (every attribute but "plugin") decoded at Load against the
	// schema the built-in reports (Options.ProviderSchemas), as JSON. It
	// holds the provider's secrets: never log it. nil for a third-party
	// provider, and when Load did not know the built-in.
	Config json.RawMessage
	// Secrets are the values of Config's settings that the schema marks
	// secret (SecretSettings).
	Secrets []string
	// Settings is the block's body when Plugin names a plugin block: a
	// third-party provider owns its settings, decoded with DecodeSettings
	// against the schema its process reports. nil for a built-in provider.
	Settings hcl.Body

	DeclRange   hcl.Range
	PluginRange hcl.Range // the plugin attribute's value, or DeclRange when defaulted
	// APIKeyLiteral is where api_key is written out in the file, rather
	// than read with env(); nil otherwise.
	APIKeyLiteral *hcl.Range
	// APIKeyEnv is NAME when api_key = env("NAME"), so that an unset
	// variable is reported by name (CheckAPIKeys); APIKeyRange is the
	// attribute's value.
	APIKeyEnv   string
	APIKeyRange hcl.Range
}

// Model is a model block: a model of a provider, with the values that override what
// the provider reports.
type Model struct {
	Name            string
	Provider        string
	ID              string // the provider's model id; default Name
	ContextWindow   int64  // 0 = as the provider reports
	MaxOutput       int64  // 0 = as the provider reports
	Thinking        *bool  // nil = the model's default
	ThinkingBudget  int64  // reasoning tokens per request; 0 = the provider's default
	ReplayReasoning bool   // default true
	Pricing         *Pricing

	DeclRange hcl.Range
}

// Pricing is in USD per million tokens.
type Pricing struct {
	InputCacheHit  float64 // default InputCacheMiss (no cache discount)
	InputCacheMiss float64
	Output         float64
	// InputCacheWrite prices prompt tokens written to the cache (Anthropic);
	// default InputCacheMiss.
	InputCacheWrite float64
}

// Plugin is a plugin block: a third-party plugin executable.
type Plugin struct {
	Name     string
	Path     string // absolute
	SHA256   string // lower-case hex; "" = take it from the lock file
	Approval string // for tools flagged writes/executes: allow | ask | deny; default ask
	// Timeout is the deadline of one call to one of its tools; 0 = the
	// executor's default (60 s).
	Timeout time.Duration
	// Env is the plugin's environment beyond the host's base variables
	// (PATH, HOME, LANG...): nothing else of the host's environment
	// reaches a plugin.
	Env map[string]string
	// Config is the body of the config block, nil when there is none; decode it with
	// DecodePluginConfig against the schema the plugin reports.
	Config hcl.Body

	DeclRange hcl.Range
}

// Hook is a hook block: a third-party hook plugin subscribed to phases.
type Hook struct {
	Name    string
	Path    string        // absolute
	SHA256  string        // lower-case hex; "" = take it from the lock file
	Phases  []string      // sdk.HookPhases, each once
	Timeout time.Duration // default 10s

	DeclRange hcl.Range
}

// MCPServer is an mcp block: an MCP server reached over stdio (Command) or
// streamable HTTP (URL), exactly one of the two.
type MCPServer struct {
	Name     string
	Command  []string
	Env      map[string]string
	URL      string
	Approval string // allow | ask | deny; default ask
	// Timeout is the deadline of one call to one of its tools; 0 = the
	// executor's default (60 s).
	Timeout time.Duration

	DeclRange hcl.Range
}

// Agent is an agent block.
type Agent struct {
	Name string
	// Models is the fallback waterfall: the first model, then the next on retryable errors.
	Models  []string
	System  string
	Persona string
	// Tools is the whitelist, in the order written; ToolRanges holds the range of each
	// element (parallel to Tools) and ToolsRange the whole value (DeclRange when absent).
	Tools       []string
	ToolRanges  []hcl.Range
	ToolsRange  hcl.Range
	MaxTurns    int // default 50
	Context     ContextSettings
	Budget      Budget
	Permissions Permissions

	DeclRange hcl.Range
}

// ContextSettings is an agent's context block.
type ContextSettings struct {
	Threshold  float64 // in (0,1]; default 0.8
	KeepRecent int     // default 6
	// Summarizer names the agent whose model writes summaries; "" = the default rule,
	// see Config.SummarizerAgent.
	Summarizer string
	// SummaryTimeout bounds a summarizer call; 0 = the agent package's
	// default (30 s). After it, the deterministic summary is used.
	SummaryTimeout time.Duration
}

// Budget is an agent's budget block; 0 = unlimited.
type Budget struct {
	MaxTokens int64
	MaxUSD    float64
}

// Permissions is an agent's permissions block.
type Permissions struct {
	Write              []string // workspace-relative globs (doublestar) where writes run directly
	Terminal           string   // allow | ask | deny; default ask
	AllowCommands      []string
	DenyCommands       []string
	Unattended         string        // deny | defer; default deny
	TerminalTimeout    time.Duration // default 120s
	TerminalMaxTimeout time.Duration // default 600s
	Sandbox            string        // off | workspace-write; default workspace-write (where the kernel supports it)
	Network            bool          // sandboxed terminal commands may use the network; default false
	// TerminalStoreBytes bounds the tool.progress output of one call kept in
	// the session store: a head and a tail of this many bytes in all.
	TerminalStoreBytes int64 // default DefaultTerminalStoreBytes; 0 keeps no progress
	// ApprovalTimeout bounds how long a pending action of a session on the
	// Temporal engine waits for a person: on expiry it is denied. 0: no bound.
	ApprovalTimeout time.Duration
}

// DefaultTerminalStoreBytes is the default of permissions.terminal_store_bytes.
const DefaultTerminalStoreBytes = 1 << 20

// Agent returns the agent named name, the first agent declared when name is "",
// and nil when there is none.
func (c *Config) Agent(name string) *Agent {
	if name == "" {
		if len(c.Agents) == 0 {
			return nil
		}
		return c.Agents[0]
	}
	return find(c.Agents, name, func(a *Agent) string { return a.Name })
}

// Model returns the model named name, or nil.
func (c *Config) Model(name string) *Model {
	return find(c.Models, name, func(m *Model) string { return m.Name })
}

// Provider returns the provider named name, or nil.
func (c *Config) Provider(name string) *Provider {
	return find(c.Providers, name, func(p *Provider) string { return p.Name })
}

// Plugin returns the plugin block named name, or nil.
func (c *Config) Plugin(name string) *Plugin {
	return find(c.Plugins, name, func(p *Plugin) string { return p.Name })
}

// Hook returns the hook block named name, or nil.
func (c *Config) Hook(name string) *Hook {
	return find(c.Hooks, name, func(h *Hook) string { return h.Name })
}

// MCP returns the mcp block named name, or nil.
func (c *Config) MCP(name string) *MCPServer {
	return find(c.MCPServers, name, func(m *MCPServer) string { return m.Name })
}

// SummarizerAgent returns the agent whose model writes a's context summaries: the agent
// its context block names; else the agent named DefaultSummarizerAgent when declared;
// else a itself.
func (c *Config) SummarizerAgent(a *Agent) *Agent {
	if a.Context.Summarizer != "" {
		if s := c.Agent(a.Context.Summarizer); s != nil {
			return s
		}
	}
	if s := c.Agent(DefaultSummarizerAgent); s != nil {
		return s
	}
	return a
}

func find[T any](items []T, name string, nameOf func(T) string) T {
	for _, it := range items {
		if nameOf(it) == name {
			return it
		}
	}
	var zero T
	return zero
}
