package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/view"
)

func (c *cli) sessionsViewCommand(workspace *string) *cobra.Command {
	var out string
	var open bool
	cmd := &cobra.Command{
		Use:   "view ID [-o FILE.html] [--open]",
		Short: "Write a session as one self-contained HTML page (timeline, tool cards, token chart)",
		Long: "Write a session as one self-contained HTML page: no network, no external file; it works from file://\n" +
			"and as an attachment. Without -o it is written to ID.html in the current folder; -o - writes it to stdout.",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withSession(cmd.Context(), *workspace, args[0], func(_ *session.Store, info session.SessionInfo, evs []session.Event) error {
				if out == "-" {
					if open {
						return exitf(exitUsage, "--open needs a file: pass -o FILE.html instead of -o -")
					}
					return view.Render(c.stdout, info, evs)
				}
				path := out
				if path == "" {
					path = info.ID + ".html"
				}
				if err := writeView(path, info, evs); err != nil {
					return err
				}
				abs, err := filepath.Abs(path)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.stderr, "wrote %s (%d events)\n", abs, len(evs))
				if open {
					if err := openBrowser(abs); err != nil {
						return fmt.Errorf("open %s in a browser: %w; open the file by hand", abs, err)
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write (default ID.html; - for stdout)")
	cmd.Flags().BoolVar(&open, "open", false, "open the page in the default browser")
	return cmd
}

// writeView writes the page next to its destination and renames it into
// place, so a failed render never leaves half a page behind.
func writeView(path string, info session.SessionInfo, evs []session.Event) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".harness-view-*.html")
	if err != nil {
		return fmt.Errorf("write session page: %w", err)
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriter(f)
	err = view.Render(w, info, evs)
	if err == nil {
		err = w.Flush()
	}
	err = closeAfter(f, err)
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write session page %s: %w", path, err)
	}
	return nil
}

func closeAfter(c io.Closer, err error) error {
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}
