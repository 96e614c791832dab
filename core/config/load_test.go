package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/sdk"
)

// testEnv stands in for the process environment, so that tests can run in parallel.
var testEnv = map[string]string{
	"DEEPSEEK_API_KEY": "sk-test",
	"HARNESS_TEST_KEY": "key-123",
}

func loadTest(path string) (*Config, hcl.Diagnostics) {
	return load(path, func(name string) string { return testEnv[name] }, testOptions)
}

func abs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ptr[T any](v T) *T { return &v }

// ignoreRanges leaves source ranges, parsed files and plugin config bodies out of
// comparisons: they are checked by the diagnostics tests.
var ignoreRanges = cmp.Options{
	cmpopts.IgnoreTypes(hcl.Range{}, []hcl.Range(nil)),
	cmpopts.IgnoreFields(Config{}, "Files", "Inputs"), // Inputs: TestFingerprintChanges
	cmpopts.IgnoreFields(Plugin{}, "Config"),
	cmpopts.IgnoreFields(Provider{}, "APIKeyEnv"), // checked by TestCheckAPIKeysNamesTheUnsetVariable
}

func defaultPermissions() Permissions {
	return Permissions{
		Terminal:           PolicyAsk,
		Unattended:         UnattendedDeny,
		TerminalTimeout:    120 * time.Second,
		TerminalMaxTimeout: 600 * time.Second,
		TerminalStoreBytes: DefaultTerminalStoreBytes,
		Sandbox:            SandboxWorkspaceWrite,
	}
}

func TestLoadValid(t *testing.T) {
	t.Parallel()
	valid := abs(t, "testdata/valid")
	prompt, err := os.ReadFile("testdata/valid/prompts/coder.md")
	if err != nil {
		t.Fatal(err)
	}
	fullPrice := &Pricing{InputCacheHit: 0.003, InputCacheMiss: 0.15, Output: 0.60, InputCacheWrite: 0.15}

	tests := map[string]*Config{
		"full.hcl": {
			Path:      filepath.Join(valid, "full.hcl"),
			Dir:       valid,
			Workspace: valid,
			Providers: []*Provider{{
				Name:   "deepseek",
				Plugin: "provider-deepseek",
				APIKey: "sk-test",
				Config: json.RawMessage(`{"api_key":"sk-test","base_url":"https://api.deepseek.com","headers":{"X-Team":"research"},` +
					`"max_event_bytes":1048576,"require_done":true,"timeout_first_token":"120s","timeout_idle":"60s"}`),
				Secrets: []string{"sk-test"},
			}},
			Models: []*Model{{
				Name:            "flash",
				Provider:        "deepseek",
				ID:              "deepseek-flash",
				ContextWindow:   1000000,
				MaxOutput:       32000,
				Thinking:        ptr(true),
				ReplayReasoning: true,
				Pricing:         fullPrice,
			}},
			Plugins: []*Plugin{{
				Name:     "weather",
				Path:     filepath.Join(valid, "bin", "harness-tool-weather"),
				SHA256:   "8c1c58d223e9242a47f53e8ff2c42b8b49739014ac3a32a6c295516763104028",
				Approval: PolicyAllow,
				Timeout:  30 * time.Second,
			}},
			Hooks: []*Hook{{
				Name:    "approver",
				Path:    filepath.Join(valid, "bin", "harness-hook-approver"),
				Phases:  []string{sdk.PhaseApprove},
				Timeout: 10 * time.Second,
			}},
			MCPServers: []*MCPServer{{
				Name:     "everything",
				Command:  []string{"npx", "-y", "@modelcontextprotocol/server-everything"},
				Env:      map[string]string{"DEBUG": "0"},
				Approval: PolicyAsk,
				Timeout:  45 * time.Second,
			}},
			Agents: []*Agent{
				{
					Name:     "coder",
					Models:   []string{"flash"},
					System:   string(prompt),
					Persona:  "A careful Go reviewer.",
					Tools:    []string{"read_file", "search_workspace", "write_file", "terminal", "emit_artifact", "weather_forecast", "everything__echo"},
					MaxTurns: 40,
					Context:  ContextSettings{Threshold: 0.8, KeepRecent: 6, Summarizer: "context-manager", SummaryTimeout: 20 * time.Second},
					Budget:   Budget{MaxTokens: 2000000, MaxUSD: 1.50},
					Permissions: Permissions{
						Write:              []string{"src/**", "docs/*.md"},
						Terminal:           PolicyAsk,
						AllowCommands:      []string{"go test ./...", "git status", "ls *"},
						DenyCommands:       []string{"rm *", "git push *"},
						Unattended:         UnattendedDeny,
						TerminalTimeout:    120 * time.Second,
						TerminalMaxTimeout: 600 * time.Second,
						TerminalStoreBytes: DefaultTerminalStoreBytes,
						Sandbox:            SandboxOff,
					},
				},
				{
					Name:        "context-manager",
					Models:      []string{"flash"},
					MaxTurns:    50,
					Context:     ContextSettings{Threshold: 0.8, KeepRecent: 6},
					Permissions: defaultPermissions(),
				},
			},
		},
		"minimal.hcl": {
			Path:      filepath.Join(valid, "minimal.hcl"),
			Dir:       valid,
			Workspace: valid,
			Providers: []*Provider{{
				Name:   "ds",
				Plugin: DefaultProviderPlugin,
				Config: json.RawMessage(`{}`),
			}},
			Models: []*Model{{Name: "chat", Provider: "ds", ID: "chat", ReplayReasoning: true}},
			Agents: []*Agent{{
				Name:        "solo",
				Models:      []string{"chat"},
				MaxTurns:    50,
				Context:     ContextSettings{Threshold: 0.8, KeepRecent: 6},
				Permissions: defaultPermissions(),
			}},
		},
		"functions.hcl": {
			Path:      filepath.Join(valid, "functions.hcl"),
			Dir:       valid,
			Workspace: valid,
			Providers: []*Provider{{
				Name:   "custom",
				Plugin: "provider-anthropic",
				APIKey: "key-123",
				Config: json.RawMessage(`{"api_key":"key-123","base_url":"https://api.example.com/v1",` +
					`"headers":{"X-Json":"{\"k\":\"v\"}","X-Tags":"a,b,c","X-Unset":""},"require_done":false}`),
				Secrets: []string{"key-123"},
			}},
			Models: []*Model{
				{Name: "main", Provider: "custom", ID: "model-1", ReplayReasoning: true},
				{Name: "backup", Provider: "custom", ID: "backup", Thinking: ptr(false), ReplayReasoning: true},
			},
			MCPServers: []*MCPServer{{Name: "custom", URL: "https://mcp.example.com/mcp", Approval: PolicyDeny}},
			Agents: []*Agent{{
				Name:     "writer",
				Models:   []string{"main", "backup"},
				System:   strings.TrimSpace(string(prompt)),
				Persona:  "TERSE",
				Tools:    []string{"read_file", "custom__*"},
				MaxTurns: 50,
				Context:  ContextSettings{Threshold: 0.8, KeepRecent: 6},
				Permissions: Permissions{
					Terminal:           PolicyDeny,
					Unattended:         UnattendedDefer,
					TerminalTimeout:    120 * time.Second,
					TerminalMaxTimeout: 600 * time.Second,
					TerminalStoreBytes: DefaultTerminalStoreBytes,
					Sandbox:            SandboxWorkspaceWrite,
					Network:            true,
				},
			}},
		},
		"multi": {
			Path:      filepath.Join(valid, "multi"),
			Dir:       filepath.Join(valid, "multi"),
			Workspace: filepath.Join(valid, "prompts"),
			Providers: []*Provider{{
				Name:    "deepseek",
				Plugin:  DefaultProviderPlugin,
				APIKey:  "sk-test",
				Config:  json.RawMessage(`{"api_key":"sk-test"}`),
				Secrets: []string{"sk-test"},
			}},
			Models: []*Model{{
				Name: "flash", Provider: "deepseek", ID: "flash", ReplayReasoning: true,
				Pricing: &Pricing{InputCacheHit: 0.15, InputCacheMiss: 0.15, Output: 0.6, InputCacheWrite: 0.15},
			}},
			// Files load in name order: agents.hcl before models.hcl.
			Agents: []*Agent{
				{
					Name:        "reviewer",
					Models:      []string{"flash"},
					MaxTurns:    50,
					Context:     ContextSettings{Threshold: 0.5, KeepRecent: 6},
					Budget:      Budget{MaxUSD: 2},
					Permissions: defaultPermissions(),
				},
				{
					Name:        "context-manager",
					Models:      []string{"flash"},
					MaxTurns:    50,
					Context:     ContextSettings{Threshold: 0.8, KeepRecent: 6, Summarizer: "context-manager"},
					Permissions: defaultPermissions(),
				},
			},
		},
	}

	entries, err := os.ReadDir("testdata/valid")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := tests[e.Name()]; !ok && (strings.HasSuffix(e.Name(), ".hcl") || e.Name() == "multi") {
			t.Errorf("fixture testdata/valid/%s has no expected config in TestLoadValid", e.Name())
		}
	}

	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, diags := loadTest(filepath.Join("testdata/valid", name))
			if len(diags) > 0 {
				var buf bytes.Buffer
				_ = WriteDiagnostics(&buf, cfg.Files, diags, 100, false)
				t.Fatalf("unexpected diagnostics:\n%s", buf.String())
			}
			if diff := cmp.Diff(want, cfg, ignoreRanges); diff != "" {
				t.Errorf("config mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadRanges(t *testing.T) {
	t.Parallel()
	cfg, diags := loadTest("testdata/valid/full.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	coder := cfg.Agent("coder")
	if got, want := len(coder.ToolRanges), len(coder.Tools); got != want {
		t.Fatalf("ToolRanges has %d ranges for %d tools", got, want)
	}
	src := cfg.Files[filepath.Join("testdata/valid", "full.hcl")].Bytes
	for i, tool := range coder.Tools {
		if got := string(coder.ToolRanges[i].SliceBytes(src)); got != `"`+tool+`"` {
			t.Errorf("ToolRanges[%d] covers %s, want %q", i, got, tool)
		}
	}
	if got := string(coder.ToolsRange.SliceBytes(src)); !strings.HasPrefix(got, `["read_file"`) {
		t.Errorf("ToolsRange covers %s, want the whole list", got)
	}
	if got := string(coder.DeclRange.SliceBytes(src)); got != `agent "coder"` {
		t.Errorf("DeclRange covers %q", got)
	}
	if got := string(cfg.Provider("deepseek").PluginRange.SliceBytes(src)); got != `"provider-deepseek"` {
		t.Errorf("PluginRange covers %q", got)
	}
	if cfg.Plugin("weather").Config == nil {
		t.Error("plugin weather: config body is nil")
	}
}

func TestLookups(t *testing.T) {
	t.Parallel()
	cfg, diags := loadTest("testdata/valid/full.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := cfg.Agent(""); got == nil || got.Name != "coder" {
		t.Errorf(`Agent("") = %v, want the first agent "coder"`, got)
	}
	if cfg.Agent("nope") != nil || cfg.Model("nope") != nil || cfg.Provider("nope") != nil ||
		cfg.Plugin("nope") != nil || cfg.MCP("nope") != nil || cfg.Hook("nope") != nil {
		t.Error("lookup of an undeclared name returned a block")
	}
	if cfg.Model("flash") == nil || cfg.Provider("deepseek") == nil || cfg.Plugin("weather") == nil ||
		cfg.MCP("everything") == nil || cfg.Hook("approver") == nil {
		t.Error("lookup of a declared name returned nil")
	}
	if (&Config{}).Agent("") != nil {
		t.Error(`Agent("") of an empty config is not nil`)
	}
}

func TestSummarizerAgent(t *testing.T) {
	t.Parallel()
	self := &Agent{Name: "a"}
	named := &Agent{Name: "a", Context: ContextSettings{Summarizer: "s"}}
	s := &Agent{Name: "s"}
	cm := &Agent{Name: DefaultSummarizerAgent}
	tests := []struct {
		name   string
		agents []*Agent
		agent  *Agent
		want   *Agent
	}{
		{"own model when nothing else", []*Agent{self}, self, self},
		{"context-manager when declared", []*Agent{self, cm}, self, cm},
		{"the named agent first", []*Agent{named, s, cm}, named, s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &Config{Agents: tt.agents}
			if got := cfg.SummarizerAgent(tt.agent); got != tt.want {
				t.Errorf("SummarizerAgent = %q, want %q", got.Name, tt.want.Name)
			}
		})
	}
}

func TestLoadEnvFromProcess(t *testing.T) {
	t.Setenv("HARNESS_CONFIG_TEST_KEY", "from-env")
	dir := t.TempDir()
	src := `
provider "p" {
  api_key = env("HARNESS_CONFIG_TEST_KEY")
}
model "m" {
  provider = "p"
}
agent "a" {
  model = "m"
}
`
	path := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := cfg.Provider("p").APIKey; got != "from-env" {
		t.Errorf("api_key = %q, want the environment's value", got)
	}
}

func TestLoadReadErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	tests := map[string]string{
		"missing path":  filepath.Join(empty, "nope.hcl"),
		"no hcl in dir": empty,
	}
	for name, path := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, diags := Load(path)
			if cfg == nil || cfg.Files == nil {
				t.Fatal("Load returned no Config")
			}
			if !diags.HasErrors() || diags[0].Summary != "Cannot read configuration" {
				t.Errorf("diags = %v, want Cannot read configuration", diags)
			}
		})
	}
}

func TestLoadWarnsWithoutAgent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.hcl")
	if err := os.WriteFile(path, []byte("provider \"p\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := Load(path)
	if diags.HasErrors() || len(diags) != 1 || diags[0].Summary != "No agent declared" {
		t.Errorf("diags = %v, want one warning No agent declared", diags)
	}
}
