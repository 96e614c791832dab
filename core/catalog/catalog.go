package catalog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
)

// Builtin is a plugin compiled into the harness binary.
type Builtin struct {
	Name string
	Kind string // sdk.PluginTool or sdk.PluginProvider
	// Tools are the tools a built-in tool plugin offers, known without
	// starting it, so a run starts only the plugins its agent needs.
	Tools []string
	// Shared: the plugin holds no secret and runs in the host's one shared
	// built-in process (pluginhost.Spec.Shared).
	Shared bool
}

// Plugin is what the catalog knows of one plugin.
type Plugin struct {
	Spec pluginhost.Spec
	Info sdk.PluginInfo // tool plugins, once described
	// Settings is the JSON Schema a third-party provider plugin reports for
	// its settings, once described (nil: it reports none).
	Settings  []byte
	Described bool
	Err       error // why it could not be described
}

// Catalog is the plugins of one configuration.
type Catalog struct {
	cfg  *config.Config
	host *pluginhost.Host

	mu      sync.Mutex
	plugins map[string]*Plugin
	owner   map[string]string // tool name -> plugin name
	static  map[string]string // built-in tool name -> plugin name, before describing
}

var (
	_ config.Catalog         = (*Catalog)(nil)
	_ config.ProviderCatalog = (*Catalog)(nil)

	_ config.ProviderSettingsCatalog = (*Catalog)(nil)
)

// New registers the built-ins and the configuration's plugin and hook
// blocks with host. Nothing starts yet.
func New(cfg *config.Config, host *pluginhost.Host, builtins []Builtin) (*Catalog, hcl.Diagnostics) {
	c := &Catalog{cfg: cfg, host: host, plugins: map[string]*Plugin{}, owner: map[string]string{}, static: map[string]string{}}
	lock, diags := config.ReadLock(cfg.Dir)
	add := func(spec pluginhost.Spec, rng hcl.Range) {
		if err := host.Register(spec); err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate plugin name",
				Detail: err.Error() + "; a plugin block may not reuse the name of a built-in plugin.", Subject: rng.Ptr()})
			return
		}
		c.plugins[spec.Name] = &Plugin{Spec: spec}
	}
	for _, b := range builtins {
		add(pluginhost.Spec{Name: b.Name, Kind: b.Kind, Builtin: true, Shared: b.Shared}, hcl.Range{})
		for _, t := range b.Tools {
			c.static[t] = b.Name
		}
	}
	for _, p := range cfg.Plugins {
		kind := sdk.PluginTool
		if cfg.ProviderPluginBlock(p.Name) {
			kind = sdk.PluginProvider
		}
		add(pluginhost.Spec{Name: p.Name, Kind: kind, Path: p.Path, SHA256: cfg.ExpectedSHA256(p.Name, lock), Env: envList(p.Env)}, p.DeclRange)
	}
	for _, h := range cfg.Hooks {
		add(pluginhost.Spec{Name: h.Name, Kind: sdk.PluginHook, Path: h.Path, SHA256: cfg.ExpectedSHA256(h.Name, lock)}, h.DeclRange)
	}
	return c, diags
}

// envList is env as sorted "K=V" entries.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Host returns the plugin host the catalog registered its plugins with.
func (c *Catalog) Host() *pluginhost.Host { return c.host }

// Describe starts the named tool plugins concurrently (all tool plugins and
// third-party provider plugins when names is empty) and records what they
// offer: tools and config schemas, or provider settings schemas. Failures are kept per
// plugin (see Plugins) and the first is returned.
func (c *Catalog) Describe(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		for name, p := range c.plugins {
			if p.Spec.Kind == sdk.PluginTool || p.Spec.Kind == sdk.PluginProvider && !p.Spec.Builtin {
				names = append(names, name)
			}
		}
		sort.Strings(names)
	}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.describe(ctx, name)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// DescribeFor describes only the tool plugins that may offer the given
// tools (an agent's whitelist): the built-ins known to offer them, and
// every third-party tool plugin when some tool is not a built-in's. The
// core's own tool and the tools of declared MCP servers need no plugin.
// Plugins nobody needs do not start.
func (c *Catalog) DescribeFor(ctx context.Context, tools []string) error {
	need := map[string]bool{}
	thirdParty := false
	for _, t := range tools {
		if !c.cfg.FromPlugin(t) {
			continue
		}
		if p, ok := c.static[t]; ok {
			need[p] = true
		} else {
			thirdParty = true
		}
	}
	if thirdParty {
		for name, p := range c.plugins {
			if p.Spec.Kind == sdk.PluginTool && !p.Spec.Builtin {
				need[name] = true
			}
		}
	}
	if len(need) == 0 {
		return nil
	}
	names := make([]string, 0, len(need))
	for name := range need {
		names = append(names, name)
	}
	sort.Strings(names)
	return c.Describe(ctx, names...)
}

func (c *Catalog) describe(ctx context.Context, name string) error {
	c.mu.Lock()
	kind := c.plugins[name].Spec.Kind
	c.mu.Unlock()
	if kind == sdk.PluginProvider {
		return c.describeProvider(ctx, name)
	}
	th, err := c.host.Tool(name)
	if err == nil {
		var info sdk.PluginInfo
		info, err = th.Describe(ctx)
		if err == nil {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.plugins[name].Info = info
			for _, t := range info.Tools {
				if prev, dup := c.owner[t.Name]; dup && prev != name {
					err = fmt.Errorf("tool %q is offered by both plugin %q and plugin %q", t.Name, prev, name)
					c.plugins[name].Err = err
					return err
				}
				c.owner[t.Name] = name
			}
			return nil
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.plugins[name].Err = err
	return err
}

func (c *Catalog) describeProvider(ctx context.Context, name string) error {
	var schema []byte
	ph, err := c.host.Provider(name)
	if err == nil {
		schema, err = ph.SettingsSchema(ctx)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.plugins[name]
	p.Settings, p.Described, p.Err = schema, err == nil, err
	return err
}

// ProviderSettingsSchema implements config.ProviderSettingsCatalog.
func (c *Catalog) ProviderSettingsSchema(plugin string) ([]byte, bool) {
	p, ok := c.Plugin(plugin)
	if !ok || !p.Described {
		return nil, false
	}
	return p.Settings, true
}

// Diagnostics returns the describe failures of declared plugins as
// diagnostics on their blocks. Checksum refusals are left out:
// config.CheckIntegrity reports those, without starting anything.
func (c *Catalog) Diagnostics() hcl.Diagnostics {
	c.mu.Lock()
	defer c.mu.Unlock()
	var diags hcl.Diagnostics
	for _, p := range c.cfg.Plugins {
		var integrity *pluginhost.IntegrityError
		if cp := c.plugins[p.Name]; cp != nil && cp.Err != nil && !errors.As(cp.Err, &integrity) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Plugin unusable",
				Detail: cp.Err.Error(), Subject: p.DeclRange.Ptr()})
		}
	}
	return diags
}

// Plugins returns every plugin of the catalog sorted by name.
func (c *Catalog) Plugins() []Plugin {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Plugin, 0, len(c.plugins))
	for _, p := range c.plugins {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec.Name < out[j].Spec.Name })
	return out
}

// Plugin returns one plugin of the catalog.
func (c *Catalog) Plugin(name string) (Plugin, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.plugins[name]
	if !ok {
		return Plugin{}, false
	}
	return *p, true
}

// Tool returns the plugin that offers a described tool, and the tool's spec.
func (c *Catalog) Tool(name string) (plugin string, spec sdk.ToolSpec, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	plugin, ok = c.owner[name]
	if !ok {
		return "", sdk.ToolSpec{}, false
	}
	for _, t := range c.plugins[plugin].Info.Tools {
		if t.Name == name {
			return plugin, t, true
		}
	}
	return "", sdk.ToolSpec{}, false
}

// HasTool implements config.Catalog.
func (c *Catalog) HasTool(name string) bool {
	_, _, ok := c.Tool(name)
	return ok
}

// ToolNames lists every tool the catalog knows (built-in and described),
// sorted: config.Check suggests the nearest for an unknown one.
func (c *Catalog) ToolNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	for name := range c.owner {
		seen[name] = true
	}
	for name := range c.static {
		seen[name] = true
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// ConfigSchema implements config.Catalog.
func (c *Catalog) ConfigSchema(plugin string) []byte {
	p, ok := c.Plugin(plugin)
	if !ok {
		return nil
	}
	return p.Info.ConfigSchema
}

// HasProviderPlugin implements config.ProviderCatalog.
func (c *Catalog) HasProviderPlugin(name string) bool {
	p, ok := c.Plugin(name)
	return ok && p.Spec.Kind == sdk.PluginProvider
}
