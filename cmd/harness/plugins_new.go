package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/internal/scaffold"
)

func (c *cli) pluginsNewCommand() *cobra.Command {
	var kind, replace string
	cmd := &cobra.Command{
		Use:   "new NAME [DIR]",
		Short: "Write a new plugin module (main.go, a test, go.mod, agent.hcl) that builds and runs offline",
		Args:  usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if len(args) == 2 {
				dir = args[1]
			}
			if replace == "" {
				replace = findCheckout()
			}
			files, err := scaffold.Write(scaffold.Options{Name: args[0], Kind: kind, Dir: dir, Replace: replace})
			if err != nil {
				return exitf(exitUsage, "plugins new: %v", err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Wrote the %s plugin %q in %s:\n", kind, args[0], dir)
			for _, f := range files {
				fmt.Fprintf(out, "  %s\n", f)
			}
			fmt.Fprintf(out, "Next: cd %s && go mod tidy && go test ./... — then main.go's header says how to build, lock and run it.\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "kind", scaffold.KindTool, "tool or provider")
	cmd.Flags().StringVar(&replace, "replace", "", "local checkout of the harness module for go.mod's replace (default: the checkout around the current directory, else ../harness)")
	return cmd
}

// findCheckout returns the harness checkout that holds the current
// directory, or "" when there is none.
func findCheckout() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module "+scaffold.Module+"\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
