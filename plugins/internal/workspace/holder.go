package workspace

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/harness-agent/harness/sdk"
)

// Holder keeps the workspace a plugin was configured with. The zero value
// has none; its Configure method fits sdk.ToolSet.OnConfigure. It is safe
// for concurrent use: calls may run while the host configures again.
type Holder struct {
	mu sync.RWMutex
	fs FS
}

// Configure opens cfg.Workspace, which must be an absolute directory. A
// workspace it replaces is closed by the garbage collector once no call
// uses it any more (os.Root has a finalizer), so calls in flight finish.
func (h *Holder) Configure(_ context.Context, cfg sdk.PluginConfig) error {
	if cfg.Workspace == "" || !filepath.IsAbs(cfg.Workspace) {
		return sdk.Errorf(sdk.KindInternal, "the workspace must be an absolute directory, got %q", cfg.Workspace)
	}
	fsys, err := Open(cfg.Workspace)
	if err != nil {
		return sdk.Errorf(sdk.KindInternal, "cannot open the workspace: %v", err)
	}
	h.Set(fsys)
	return nil
}

// Set installs fsys as the workspace (tests use it with NewMemFS).
func (h *Holder) Set(fsys FS) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fs = fsys
}

// FS returns the workspace, or an internal error naming tool when the
// host has not configured the plugin yet.
func (h *Holder) FS(tool string) (FS, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.fs == nil {
		return nil, sdk.Errorf(sdk.KindInternal, "%s: the plugin is not configured: the host must call Configure with the workspace before the first call", tool)
	}
	return h.fs, nil
}
