package runner

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
)

// protectedPaths lists the control plane of a run, which no tool call may
// modify: the configuration files and the files they read (file()
// targets, a provider's script) (and, for a directory configuration, any
// .hcl file added to it), the lock file, every plugin and hook binary the
// configuration declares (and an MCP server's program given by path), the
// harness binary that serves the built-in plugins, the session store, and
// the workspace's legacy store folder (.harness), present or not.
func protectedPaths(cfg *config.Config, storePath, stateDir, selfExe string) []approval.Protected {
	var out []approval.Protected
	add := func(path, why string) {
		if path == "" {
			return
		}
		if abs, err := filepath.Abs(path); err == nil {
			out = append(out, approval.Protected{Path: abs, Why: why})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Files)) {
		add(name, "a file of the agent's configuration")
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Inputs)) {
		add(name, "a file the agent's configuration reads (file() or a provider's script)")
	}
	if st, err := os.Stat(cfg.Path); err == nil && st.IsDir() {
		out = append(out, approval.Protected{Path: cfg.Path, Why: "the agent's directory configuration", NewHCL: true})
	}
	add(filepath.Join(cfg.Dir, config.LockFileName), "the plugin lock file")
	for _, p := range cfg.Plugins {
		add(p.Path, "the binary of plugin "+quote(p.Name))
	}
	for _, h := range cfg.Hooks {
		add(h.Path, "the binary of hook "+quote(h.Name))
	}
	for _, m := range cfg.MCPServers {
		// A program given by path; one found in PATH is outside the
		// workspace's concern.
		if len(m.Command) > 0 && strings.ContainsRune(m.Command[0], filepath.Separator) {
			prog := m.Command[0]
			if !filepath.IsAbs(prog) {
				prog = filepath.Join(cfg.Dir, prog)
			}
			add(prog, "the program of mcp server "+quote(m.Name))
		}
	}
	if selfExe == "" {
		selfExe, _ = os.Executable()
	}
	add(selfExe, "the harness binary, which serves the built-in plugins")
	// Whole, unless it holds the workspace (HARNESS_STATE_DIR=~): then
	// the store's files only.
	if stateDir != "" && !session.Within(cfg.Workspace, stateDir) {
		add(stateDir, "the folder of the session store")
	}
	if storePath != "" {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			add(storePath+suffix, "the session store")
		}
	}
	// The workspace's git hooks and git configuration: what a command
	// plants there (a pre-commit hook, core.fsmonitor) runs later in the
	// user's own git commands, outside any sandbox. Only when the
	// workspace is a git checkout already, so that an agent may still
	// git init a new one.
	if st, err := os.Stat(filepath.Join(cfg.Workspace, ".git")); err == nil && st.IsDir() {
		for _, f := range []string{"config", "hooks"} {
			if _, err := os.Lstat(filepath.Join(cfg.Workspace, ".git", f)); err == nil {
				add(filepath.Join(cfg.Workspace, ".git", f), "the workspace's git "+f+", which your own git commands run code from")
			}
		}
	}
	// Always, whether or not it exists: a store a command planted there
	// would be imported by the next run (the sandbox removes what a command
	// creates at a protected path that did not exist).
	add(filepath.Join(cfg.Workspace, session.LegacyDir), "the folder of an older harness's session store (delete it once you no longer need its sessions)")
	return out
}

func quote(s string) string { return `"` + s + `"` }

// secretFiles are the configuration files that hold an API key written
// out: built-in tools do not read them for the model.
func secretFiles(cfg *config.Config) []approval.Protected {
	var out []approval.Protected
	for _, p := range cfg.Providers {
		if p.APIKeyLiteral == nil {
			continue
		}
		if abs, err := filepath.Abs(p.APIKeyLiteral.Filename); err == nil {
			out = append(out, approval.Protected{Path: abs,
				Why: "a configuration file with the API key of provider " + quote(p.Name) + " written out in it"})
		}
	}
	return out
}
