package main

import (
	"github.com/spf13/cobra"
)

// pluginServeCommand is hidden: the plugin host runs it to start a
// built-in plugin in its own process.
func (c *cli) pluginServeCommand() *cobra.Command {
	plugin := &cobra.Command{Use: "plugin", Hidden: true}
	plugin.AddCommand(&cobra.Command{
		Use:   "serve NAME",
		Short: "Serve a built-in plugin over the plugin protocol (started by harness itself)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			for _, b := range builtins {
				if b.Name == args[0] {
					b.serve()
					return nil
				}
			}
			return exitf(exitUsage, "no built-in plugin named %q", args[0])
		},
	})
	return plugin
}
