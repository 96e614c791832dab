package writefile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/harness-agent/harness/plugins/internal/workspace"
	"github.com/harness-agent/harness/sdk"
)

// protectedSet holds the paths the host says no tool may modify (the
// loaded configuration, the lock file, plugin binaries, the session store:
// sdk.PluginConfig.Protected). It is safe for concurrent use.
type protectedSet struct {
	mu    sync.RWMutex
	paths []string // absolute, symbolic links resolved where they exist
}

func (p *protectedSet) set(paths []string) {
	resolved := make([]string, 0, len(paths))
	for _, path := range paths {
		if filepath.IsAbs(path) {
			resolved = append(resolved, realPath(filepath.Clean(path)))
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paths = resolved
}

// check refuses a write to name when the file it lands on is protected or
// inside a protected folder: compared on the resolved real path, and on
// the file's identity, so that neither a symbolic link nor a hard link in
// the workspace reaches a protected file.
func (p *protectedSet) check(tool string, fsys workspace.FS, name string) error {
	p.mu.RLock()
	paths := p.paths
	p.mu.RUnlock()
	if len(paths) == 0 {
		return nil
	}
	rel, err := fsys.RealPath(name)
	if err != nil {
		return workspace.Explain(tool, fsys, name, err)
	}
	abs := filepath.Join(realPath(fsys.Root()), filepath.FromSlash(rel))
	fi, statErr := fsys.Stat(rel)
	for _, prot := range paths {
		if abs == prot || strings.HasPrefix(abs, prot+string(filepath.Separator)) {
			return refuseProtected(tool, name, prot)
		}
		if statErr != nil {
			continue
		}
		if pi, err := os.Stat(prot); err == nil && os.SameFile(fi, pi) {
			return refuseProtected(tool, name, prot)
		}
	}
	return nil
}

func refuseProtected(tool, name, prot string) *sdk.Error {
	return sdk.Errorf(sdk.KindDenied, "%s: %q is protected (%s): the agent's configuration, lock file, plugins and session store cannot be changed by the agent; no approval can allow it", tool, name, prot)
}

// realPath resolves the symbolic links of path, or of its longest existing
// parent when it does not exist.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if dir == path {
		return path
	}
	return filepath.Join(realPath(dir), base)
}
