package main

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/harness-agent/harness/core/catalog"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/pluginhost"
)

// loadConfig loads a configuration and prints its diagnostics (warnings
// on stderr); a config with errors ends the command with exit code 2.
func (c *cli) loadConfig(path string, asJSON bool) (*config.Config, error) {
	cfg, warnings, err := c.loadConfigWarnings(path, asJSON)
	if err == nil && len(warnings) > 0 {
		if err := c.printDiagnostics(cfg.Files, warnings, false); err != nil {
			return nil, err
		}
	}
	return cfg, err
}

// loadConfigWarnings is loadConfig for a caller that reports the warnings
// itself.
func (c *cli) loadConfigWarnings(path string, asJSON bool) (*config.Config, hcl.Diagnostics, error) {
	cfg, diags := config.LoadWith(path, config.Options{ProviderSchemas: builtinProviderSchema})
	for _, p := range cfg.Providers {
		c.secrets.Add(p.APIKey)
		c.secrets.Add(p.Secrets...)
	}
	if diags.HasErrors() {
		var files map[string]*hcl.File
		if cfg != nil {
			files = cfg.Files
		}
		return nil, nil, c.printDiagnostics(files, diags, asJSON)
	}
	return cfg, diags, nil
}

// printDiagnostics writes diagnostics (text on stderr, or a JSON array on
// stdout) and returns the exit error they imply.
func (c *cli) printDiagnostics(files map[string]*hcl.File, diags hcl.Diagnostics, asJSON bool) error {
	if asJSON {
		out, err := config.DiagnosticsJSON(files, diags)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, string(out))
	} else if len(diags) > 0 {
		disp := c.displayFor(c.stderr)
		width := disp.width
		if width <= 0 {
			width = 100
		}
		if err := config.WriteDiagnostics(c.stderr, files, diags, uint(width), disp.color); err != nil {
			return err
		}
	}
	if diags.HasErrors() {
		return silentExit(exitUsage)
	}
	return nil
}

// openCatalog registers the built-ins and the config's plugins with a new
// plugin host. The caller closes the host.
func (c *cli) openCatalog(cfg *config.Config) (*catalog.Catalog, *pluginhost.Host, hcl.Diagnostics, error) {
	host, err := pluginhost.New(pluginhost.Options{Logger: c.logger, Secrets: c.secrets})
	if err != nil {
		return nil, nil, nil, err
	}
	if cfg == nil {
		cfg = &config.Config{}
	}
	cat, diags := catalog.New(cfg, host, builtinCatalog())
	return cat, host, diags, nil
}

func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

func printJSON(c *cli, v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// rawJSON embeds JSON bytes as a value, or null when empty.
func rawJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}
