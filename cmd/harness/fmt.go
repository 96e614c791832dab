package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/config"
)

func (c *cli) fmtCommand() *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "fmt [--check] CONFIG...",
		Short: "Rewrite HCL files in canonical format",
		Long: "Rewrites .hcl files (or every .hcl file under a directory) in canonical format,\n" +
			"comments untouched. With --check nothing is written: the files that need\n" +
			"formatting are listed and the exit code is 1 if there are any.",
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			return c.format(args, check)
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "list unformatted files and exit 1 if any, without writing")
	return cmd
}

func (c *cli) format(paths []string, check bool) error {
	files, err := hclFiles(paths)
	if err != nil {
		return exitf(exitUsage, "%v", err)
	}
	var diags hcl.Diagnostics
	sources := map[string]*hcl.File{}
	unformatted := 0
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return exitf(exitUsage, "%v", err)
		}
		out, d := config.FormatFile(src, name)
		if d.HasErrors() {
			diags = append(diags, d...)
			sources[name] = &hcl.File{Bytes: src}
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		unformatted++
		fmt.Fprintln(c.stdout, name)
		if !check {
			info, err := os.Stat(name)
			if err != nil {
				return err
			}
			if err := os.WriteFile(name, out, info.Mode().Perm()); err != nil {
				return fmt.Errorf("write %s: %w", name, err)
			}
		}
	}
	if len(diags) > 0 {
		return c.printDiagnostics(sources, diags, false)
	}
	if check && unformatted > 0 {
		return silentExit(exitFailed)
	}
	return nil
}

// hclFiles expands directories to the .hcl files under them, at any depth
// (hidden folders such as .git and .harness skipped), sorted. A directory
// with none is an error: `fmt --check DIR` must not pass by checking
// nothing.
func hclFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".hcl") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no .hcl file", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}
