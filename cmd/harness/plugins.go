package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/catalog"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/mcp"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
)

func (c *cli) pluginsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List, describe and lock plugins",
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list [CONFIG]",
			Short: "List built-in and declared plugins with what they offer",
			Args:  usageArgs(cobra.MaximumNArgs(1)),
			RunE: func(cmd *cobra.Command, args []string) error {
				return c.pluginsList(cmd.Context(), args)
			},
		},
		&cobra.Command{
			Use:   "describe NAME [CONFIG]",
			Short: "Show a plugin's tools (with input schemas) or models",
			Args:  usageArgs(cobra.RangeArgs(1, 2)),
			RunE: func(cmd *cobra.Command, args []string) error {
				return c.pluginsDescribe(cmd.Context(), args[0], args[1:])
			},
		},
		c.pluginsNewCommand(),
		&cobra.Command{
			Use:   "lock CONFIG",
			Short: "Record the sha256 of every declared plugin and hook in .harness.lock.hcl",
			Args:  usageArgs(cobra.ExactArgs(1)),
			RunE: func(_ *cobra.Command, args []string) error {
				return c.pluginsLock(args[0])
			},
		},
	)
	return cmd
}

// catalogFor opens the catalog of an optional CONFIG argument.
func (c *cli) catalogFor(args []string) (*config.Config, *catalog.Catalog, *pluginhost.Host, error) {
	var cfg *config.Config
	if len(args) == 1 {
		var err error
		if cfg, err = c.loadConfig(args[0], false); err != nil {
			return nil, nil, nil, err
		}
	}
	cat, host, diags, err := c.openCatalog(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	if diags.HasErrors() {
		host.Close()
		return nil, nil, nil, c.printDiagnostics(cfg.Files, diags, false)
	}
	if cfg == nil {
		cfg = &config.Config{}
	}
	return cfg, cat, host, nil
}

func (c *cli) pluginsList(ctx context.Context, args []string) error {
	cfg, cat, host, err := c.catalogFor(args)
	if err != nil {
		return err
	}
	defer host.Close()
	_ = cat.Describe(ctx) // failures are shown per plugin
	models := c.providerModels(ctx, cat)

	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSOURCE\tVERSION\tSHA256\tOFFERS")
	for _, p := range cat.Plugins() {
		source, sum := "built-in", "-"
		if p.Spec.Shared {
			source = "built-in (shared process)"
		}
		if !p.Spec.Builtin {
			source = p.Spec.Path
			if actual, err := pluginhost.FileSHA256(p.Spec.Path); err == nil {
				sum = actual[:12] + "…"
			}
		}
		version, offers := p.Info.Version, ""
		switch {
		case p.Err != nil:
			offers = "error: " + firstLine(p.Err.Error())
		case p.Spec.Kind == sdk.PluginTool:
			names := make([]string, len(p.Info.Tools))
			for i, t := range p.Info.Tools {
				names[i] = t.Name
			}
			offers = strings.Join(names, ", ")
		case p.Spec.Kind == sdk.PluginProvider:
			offers = models[p.Spec.Name]
		case p.Spec.Kind == sdk.PluginHook:
			if h := cfg.Hook(p.Spec.Name); h != nil {
				offers = "phases: " + strings.Join(h.Phases, ", ")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Spec.Name, p.Spec.Kind, source, orDash(version), sum, orDash(offers))
	}
	bridge := mcp.New(cfg, nil, c.logger)
	defer bridge.Close()
	for _, s := range bridge.Servers(ctx) {
		names := make([]string, len(s.Tools))
		for i, t := range s.Tools {
			names[i] = t.Name
		}
		offers := strings.Join(names, ", ")
		if s.Err != nil {
			offers = "error: " + firstLine(s.Err.Error())
		}
		fmt.Fprintf(tw, "%s\tmcp\t%s\t%s\t-\t%s\n", s.Name, s.Target, orDash(s.Version), orDash(offers))
	}
	return tw.Flush()
}

// providerModels asks every built-in provider for its model ids.
func (c *cli) providerModels(ctx context.Context, cat *catalog.Catalog) map[string]string {
	out := map[string]string{}
	for _, p := range cat.Plugins() {
		if p.Spec.Kind != sdk.PluginProvider {
			continue
		}
		ph, err := cat.Host().Provider(p.Spec.Name)
		if err != nil {
			continue
		}
		models, err := ph.Models(ctx)
		if err != nil {
			out[p.Spec.Name] = "error: " + firstLine(err.Error())
			continue
		}
		ids := make([]string, len(models))
		for i, m := range models {
			ids[i] = m.ID
		}
		out[p.Spec.Name] = "models: " + strings.Join(ids, ", ")
	}
	return out
}

func (c *cli) pluginsDescribe(ctx context.Context, name string, args []string) error {
	_, cat, host, err := c.catalogFor(args)
	if err != nil {
		return err
	}
	defer host.Close()
	p, ok := cat.Plugin(name)
	if !ok {
		return exitf(exitUsage, "no plugin named %q (see `harness plugins list`)", name)
	}
	if p.Spec.Kind == sdk.PluginProvider {
		ph, err := host.Provider(name)
		if err != nil {
			return err
		}
		models, err := ph.Models(ctx)
		if err != nil {
			return err
		}
		return printJSON(c, map[string]any{"name": name, "kind": p.Spec.Kind, "models": models})
	}
	if p.Spec.Kind == sdk.PluginHook {
		hh, err := host.Hook(name)
		if err != nil {
			return err
		}
		phases, err := hh.Phases(ctx)
		if err != nil {
			return err
		}
		return printJSON(c, map[string]any{"name": name, "kind": p.Spec.Kind, "phases": phases})
	}
	if err := cat.Describe(ctx, name); err != nil {
		return err
	}
	p, _ = cat.Plugin(name)
	type tool struct {
		Name         string           `json:"name"`
		Description  string           `json:"description"`
		Capabilities sdk.Capabilities `json:"capabilities"`
		InputSchema  any              `json:"input_schema"`
	}
	tools := make([]tool, len(p.Info.Tools))
	for i, t := range p.Info.Tools {
		tools[i] = tool{t.Name, t.Description, t.Capabilities, rawJSON(t.InputSchema)}
	}
	return printJSON(c, map[string]any{
		"name": name, "kind": p.Spec.Kind, "version": p.Info.Version,
		"tools": tools, "config_schema": rawJSON(p.Info.ConfigSchema),
	})
}

func (c *cli) pluginsLock(path string) error {
	cfg, err := c.loadConfig(path, false)
	if err != nil {
		return err
	}
	entries := map[string]config.LockEntry{}
	add := func(name, file string) error {
		sum, err := pluginhost.FileSHA256(file)
		if err != nil {
			return exitf(exitUsage, "plugin %q: %v", name, err)
		}
		rel, err := filepath.Rel(cfg.Dir, file)
		if err != nil {
			rel = file
		}
		entries[name] = config.LockEntry{Path: filepath.ToSlash(rel), SHA256: sum}
		return nil
	}
	for _, p := range cfg.Plugins {
		if err := add(p.Name, p.Path); err != nil {
			return err
		}
	}
	for _, h := range cfg.Hooks {
		if err := add(h.Name, h.Path); err != nil {
			return err
		}
	}
	if err := config.WriteLock(cfg.Dir, entries); err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(c.stdout, "locked %s  %s  sha256:%s\n", n, entries[n].Path, entries[n].SHA256)
	}
	fmt.Fprintf(c.stdout, "wrote %s\n", filepath.Join(cfg.Dir, config.LockFileName))
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
