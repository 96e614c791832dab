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
			warnMissingCheckout(cmd, dir, replace)
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
// directory, else the one that holds this harness binary (built with `go
// build` in a checkout and run from elsewhere), or "" when there is none.
func findCheckout() string {
	if wd, err := os.Getwd(); err == nil {
		if dir := checkoutAround(wd); dir != "" {
			return dir
		}
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			return checkoutAround(filepath.Dir(exe))
		}
	}
	return ""
}

// warnMissingCheckout says, before the first `go mod tidy` fails, that
// go.mod's replace points at a directory that holds no checkout.
func warnMissingCheckout(cmd *cobra.Command, dir, replace string) {
	target := replace
	if target == "" {
		target = "../harness"
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	if checkoutAround(target) == target {
		return
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "Note: go.mod's replace points at %s, which holds no harness checkout; clone https://github.com/harness-agent/harness there, or run again with --replace DIR.\n", visibleLine(target))
}

// checkoutAround returns the harness checkout that holds dir, or "".
func checkoutAround(dir string) string {
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
