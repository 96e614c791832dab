package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/config"
)

func (c *cli) validateCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [--json] CONFIG",
		Short: "Check a configuration without calling a model",
		Long: "Checks everything that can be checked without a model and without the network:\n" +
			"references, enums, thresholds, files, plugin checksums, tool whitelists and plugin\n" +
			"config blocks against what the plugins report. It starts plugins to ask what they\n" +
			"offer, but never MCP servers and never a provider's HTTP endpoint.",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.validate(cmd.Context(), args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print diagnostics as a JSON array on stdout")
	return cmd
}

func (c *cli) validate(ctx context.Context, path string, asJSON bool) error {
	cfg, warnings, err := c.loadConfigWarnings(path, asJSON)
	if err != nil {
		return err
	}
	cat, host, diags, err := c.openCatalog(cfg)
	if err != nil {
		return err
	}
	diags = append(warnings, diags...)
	defer host.Close()
	diags = append(diags, config.CheckIntegrity(cfg)...)
	diags = append(diags, config.CheckAPIKeys(cfg)...)
	// Describe failures are reported per plugin by Diagnostics.
	_ = cat.Describe(ctx)
	diags = append(diags, cat.Diagnostics()...)
	if !diags.HasErrors() {
		diags = append(diags, config.Check(cfg, cat)...)
	}
	if err := c.printDiagnostics(cfg.Files, diags, asJSON); err != nil {
		return err
	}
	if !asJSON {
		fmt.Fprintf(c.stdout, "%s: valid (%s, %s declared)\n", path,
			countNoun(len(cfg.Agents), "agent"), countNoun(len(cfg.Plugins)+len(cfg.Hooks), "plugin"))
	}
	return nil
}
