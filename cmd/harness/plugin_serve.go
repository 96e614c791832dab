package main

import (
	"github.com/spf13/cobra"
)

// pluginServeCommand is hidden: the plugin host runs it to start a
// built-in plugin in its own process.
func (c *cli) pluginServeCommand() *cobra.Command {
	plugin := &cobra.Command{Use: "plugin", Hidden: true}
	var shared bool
	serve := &cobra.Command{
		Use:   "serve NAME | serve --shared",
		Short: "Serve a built-in plugin over the plugin protocol (started by harness itself)",
		Long: "Serve a built-in plugin over the plugin protocol (started by harness itself).\n\n" +
			"With --shared, serve in one process every built-in that holds no secret, each made\n" +
			"on the first call that names it.",
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if shared {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		}),
		RunE: func(_ *cobra.Command, args []string) error {
			if shared {
				serveShared()
				return nil
			}
			for _, b := range builtins {
				if b.Name == args[0] {
					b.serve()
					return nil
				}
			}
			return exitf(exitUsage, "no built-in plugin named %q", args[0])
		},
	}
	serve.Flags().BoolVar(&shared, "shared", false, "serve every built-in without a secret in this one process")
	plugin.AddCommand(serve)
	return plugin
}
