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

// versionString is the module version and the VCS revision the binary was
// built from (go build stamps both in the build info): "harness v1.2.0" for
// a release, "harness (devel) 1a2b3c4d5e6f+dirty 2026-12-01T20:00:00Z" for
// a build of a checkout.
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(version, bi)
}

func formatVersion(v string, bi *debug.BuildInfo) string {
	var rev, at, dirty string
	if bi != nil {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	out := "harness " + v
	if rev != "" {
		out += " " + rev[:min(12, len(rev))] + dirty
		if at != "" {
			out += " " + at
		}
	} else if v == "(devel)" {
		out += " (no VCS revision: built outside a git checkout, or with -buildvcs=false)"
	}
	return fmt.Sprintf("%s (plugin protocol v%d, %s %s/%s)", out, sdk.ProtocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (c *cli) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and VCS revision of harness and its plugin protocol version",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(c.stdout, versionString())
			return nil
		},
	}
}
