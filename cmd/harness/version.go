package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/sdk"
)

// version is set at release builds with -ldflags "-X main.version=v1.2.3".
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("harness %s (plugin protocol v%d, %s %s/%s)", v, sdk.ProtocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (c *cli) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of harness and of its plugin protocol",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(c.stdout, versionString())
			return nil
		},
	}
}
