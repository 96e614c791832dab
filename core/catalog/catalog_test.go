package catalog

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/internal/testkit"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
)

// fakeEnv names the fake plugin a third-party plugin block runs: the test
// binary serves it (see TestMain), as it serves built-ins for
// "plugin serve NAME", the way the harness binary does.
const fakeEnv = "CATALOG_TEST_PLUGIN"

// fakeTools are the tools each fake plugin offers.
var fakeTools = map[string][]string{
	"files":  {"read_file", "write_file"},
	"search": {"search_workspace"},
	"extra":  {"wordcount", "lint"},
	"clash":  {"read_file"},
}

func TestMain(m *testing.M) {
	name := os.Getenv(fakeEnv)
	if len(os.Args) == 4 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		name = os.Args[3]
	}
	if name != "" {
		serveFake(name)
		return
	}
	testkit.Main(m)
}

func serveFake(name string) {
	tools, ok := fakeTools[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "fake plugin %q does not exist\n", name)
		os.Exit(3)
	}
	set := &sdk.ToolSet{Name: name, Version: "1.0.0"}
	for _, t := range tools {
		set.Tools = append(set.Tools, sdk.Tool{
			Spec: sdk.ToolSpec{Name: t, Description: t + " of plugin " + name},
			Run:  func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) { return sdk.Result{}, nil },
		})
	}
	sdk.ServeTool(set)
}

var builtins = []Builtin{
	{Name: "files", Kind: sdk.PluginTool, Tools: fakeTools["files"]},
	{Name: "search", Kind: sdk.PluginTool, Tools: fakeTools["search"]},
	{Name: "provider-script", Kind: sdk.PluginProvider},
}

// thirdParty declares a plugin block whose process is this test binary
// serving the fake plugin fake.
func thirdParty(t *testing.T, name, fake string) *config.Plugin {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sum, err := config.FileSHA256(exe)
	if err != nil {
		t.Fatal(err)
	}
	return &config.Plugin{Name: name, Path: exe, SHA256: sum, Env: map[string]string{fakeEnv: fake}}
}

func newCatalog(t *testing.T, cfg *config.Config) *Catalog {
	t.Helper()
	cfg.Dir = t.TempDir()
	host, err := pluginhost.New(pluginhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	c, diags := New(cfg, host, builtins)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return c
}

// started lists the catalog's plugins that have a running process.
func started(c *Catalog) []string {
	var out []string
	for _, p := range c.Plugins() {
		if c.Host().PID(p.Spec.Name) != 0 {
			out = append(out, p.Spec.Name)
		}
	}
	return out
}

// TestDescribeForStartsOnlyWhatTheToolsNeed: a run starts the built-ins
// that offer its whitelisted tools, every third-party tool plugin when a
// tool is no built-in's, and nothing for the core's own tool or the tools
// of a declared MCP server.
func TestDescribeForStartsOnlyWhatTheToolsNeed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tools []string
		want  []string
	}{
		{"no tools", nil, nil},
		{"one built-in", []string{"read_file"}, []string{"files"}},
		{"two tools of one built-in", []string{"read_file", "write_file"}, []string{"files"}},
		{"two built-ins", []string{"search_workspace", "read_file"}, []string{"files", "search"}},
		{"a third party's tool", []string{"wordcount"}, []string{"extra"}},
		{"a tool nobody offers asks the third parties", []string{"read_file", "nope"}, []string{"extra", "files"}},
		{"core tool and mcp tools need no plugin", []string{config.EmitArtifactTool, "ev__echo", "ev__*"}, nil},
		{"an undeclared server's tool may be a plugin's", []string{"nomcp__x"}, []string{"extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &config.Config{Plugins: []*config.Plugin{thirdParty(t, "extra", "extra")}, MCPServers: []*config.MCPServer{{Name: "ev"}}}
			c := newCatalog(t, cfg)
			if err := c.DescribeFor(context.Background(), tt.tools); err != nil {
				t.Fatal(err)
			}
			if got := started(c); !slices.Equal(got, tt.want) {
				t.Errorf("DescribeFor(%q) started %q, want %q", tt.tools, got, tt.want)
			}
		})
	}
}

// TestToolsAndOwners: what the catalog answers about tools before and
// after the plugins describe themselves.
func TestToolsAndOwners(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Plugins: []*config.Plugin{thirdParty(t, "extra", "extra")}}
	c := newCatalog(t, cfg)
	// Before anything starts, the built-ins' tools are known by name (for
	// suggestions) but have no described owner yet.
	if got, want := c.ToolNames(), []string{"read_file", "search_workspace", "write_file"}; !slices.Equal(got, want) {
		t.Errorf("ToolNames before describing = %q, want %q", got, want)
	}
	if c.HasTool("read_file") {
		t.Error("HasTool(read_file) before any plugin described itself")
	}
	if len(started(c)) != 0 {
		t.Fatalf("New started %q", started(c))
	}
	if err := c.Describe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := started(c), []string{"extra", "files", "search"}; !slices.Equal(got, want) {
		t.Errorf("Describe() started %q, want every tool plugin %q (no provider)", got, want)
	}
	tests := []struct {
		tool, owner string
	}{
		{"read_file", "files"},
		{"write_file", "files"},
		{"search_workspace", "search"},
		{"wordcount", "extra"},
		{"lint", "extra"},
		{"nope", ""},
	}
	for _, tt := range tests {
		owner, spec, ok := c.Tool(tt.tool)
		if owner != tt.owner || ok != (tt.owner != "") || c.HasTool(tt.tool) != ok {
			t.Errorf("Tool(%q) = %q, %v; want %q", tt.tool, owner, ok, tt.owner)
			continue
		}
		if ok && spec.Description != tt.tool+" of plugin "+tt.owner {
			t.Errorf("Tool(%q) spec %+v: not the one its plugin described", tt.tool, spec)
		}
	}
	if got, want := c.ToolNames(), []string{"lint", "read_file", "search_workspace", "wordcount", "write_file"}; !slices.Equal(got, want) {
		t.Errorf("ToolNames after describing = %q, want %q", got, want)
	}
}

// TestDescribeFailures: a tool offered by two plugins and a plugin that
// cannot start are errors of the plugin concerned, shown as diagnostics on
// its block; a checksum mismatch is left to config.CheckIntegrity.
func TestDescribeFailures(t *testing.T) {
	t.Parallel()
	wrongSum := thirdParty(t, "tampered", "extra")
	wrongSum.SHA256 = strings.Repeat("0", 64)
	cfg := &config.Config{Plugins: []*config.Plugin{
		thirdParty(t, "clash", "clash"),
		thirdParty(t, "missing", "no-such-fake"),
		wrongSum,
	}}
	c := newCatalog(t, cfg)
	if err := c.Describe(context.Background()); err == nil {
		t.Fatal("Describe succeeded with a clash, a plugin that exits and a wrong checksum")
	}
	tests := []struct {
		plugin string
		err    string // "" for no error
	}{
		{"files", ""},
		{"clash", `tool "read_file" is offered by both plugin "files" and plugin "clash"`},
		{"missing", "no-such-fake"},
		{"tampered", "sha256"},
	}
	for _, tt := range tests {
		p, ok := c.Plugin(tt.plugin)
		switch {
		case !ok:
			t.Errorf("no plugin %q", tt.plugin)
		case tt.err == "" && p.Err != nil:
			t.Errorf("plugin %q: %v", tt.plugin, p.Err)
		case tt.err != "" && (p.Err == nil || !strings.Contains(p.Err.Error(), tt.err)):
			t.Errorf("plugin %q: error %v, want one saying %q", tt.plugin, p.Err, tt.err)
		}
	}
	if owner, _, _ := c.Tool("read_file"); owner != "files" {
		t.Errorf("read_file is owned by %q after the clash, want the built-in", owner)
	}
	var subjects []string
	for _, d := range c.Diagnostics() {
		if d.Summary != "Plugin unusable" {
			t.Errorf("diagnostic %q: %s", d.Summary, d.Detail)
		}
		for _, p := range cfg.Plugins {
			if d.Detail == c.plugins[p.Name].Err.Error() {
				subjects = append(subjects, p.Name)
			}
		}
	}
	slices.Sort(subjects)
	if want := []string{"clash", "missing"}; !slices.Equal(subjects, want) {
		t.Errorf("diagnostics for %q, want %q (a checksum mismatch is CheckIntegrity's)", subjects, want)
	}
}

// TestNewRegistersEveryBlock: the kind of each plugin the catalog
// registers, and a block that reuses a built-in's name.
func TestNewRegistersEveryBlock(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{
		Plugins: []*config.Plugin{
			{Name: "tools", Path: "/bin/true", Env: map[string]string{"B": "2", "A": "1"}},
			{Name: "llm", Path: "/bin/true"},
		},
		Providers: []*config.Provider{{Name: "p", Plugin: "llm", Settings: hcl.EmptyBody()}},
		Hooks:     []*config.Hook{{Name: "gate", Path: "/bin/true"}},
	}
	c := newCatalog(t, cfg)
	tests := []struct {
		name, kind string
		builtin    bool
	}{
		{"files", sdk.PluginTool, true},
		{"provider-script", sdk.PluginProvider, true},
		{"tools", sdk.PluginTool, false},
		{"llm", sdk.PluginProvider, false}, // a provider block names it
		{"gate", sdk.PluginHook, false},
	}
	for _, tt := range tests {
		p, ok := c.Plugin(tt.name)
		if !ok || p.Spec.Kind != tt.kind || p.Spec.Builtin != tt.builtin {
			t.Errorf("plugin %q: %+v, want kind %s, builtin %v", tt.name, p.Spec, tt.kind, tt.builtin)
		}
		if got := c.HasProviderPlugin(tt.name); got != (tt.kind == sdk.PluginProvider) {
			t.Errorf("HasProviderPlugin(%q) = %v", tt.name, got)
		}
	}
	if p, _ := c.Plugin("tools"); !slices.Equal(p.Spec.Env, []string{"A=1", "B=2"}) {
		t.Errorf("env %q, want sorted K=V entries", p.Spec.Env)
	}

	host, err := pluginhost.New(pluginhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	dup := &config.Config{Dir: t.TempDir(), Plugins: []*config.Plugin{{Name: "files", Path: "/bin/true"}}}
	_, diags := New(dup, host, builtins)
	if !diags.HasErrors() || diags[0].Summary != "Duplicate plugin name" || !strings.Contains(diags[0].Detail, "built-in") {
		t.Errorf("a plugin block named like a built-in: %v", diags)
	}
}
