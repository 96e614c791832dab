package pluginhost

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/sdk"
	"github.com/hashicorp/go-plugin"
	"golang.org/x/sync/errgroup"
)

// Spec declares a plugin the host may start.
type Spec struct {
	Name    string // unique: a built-in's name or the HCL block's label
	Kind    string // sdk.PluginTool, sdk.PluginProvider or sdk.PluginHook
	Builtin bool   // served by the harness binary itself
	// Serves names the built-in a process serves when it differs from Name:
	// two provider blocks on one built-in provider get a process each.
	Serves string
	Path   string // third-party: the executable
	SHA256 string // third-party: the expected hex checksum
	// Env is the plugin's whole environment beyond BaseEnv ("K=V").
	Env []string
	// Shared puts a built-in tool or provider plugin that holds no secret
	// in the host's one shared process (`plugin serve --shared`) instead of
	// a process of its own: one process start and one Go runtime for all of
	// them. A crash of that process ends every plugin in it; each one's
	// next call starts a fresh process and replays its configuration.
	Shared bool
}

// Options configure a Host.
type Options struct {
	// SelfExe is the binary that serves built-in plugins (`SelfExe plugin
	// serve NAME`), opened when the host is made; default: this process's
	// own running image, not the file at its path, which may have been
	// replaced since it started.
	SelfExe string
	// Logger receives the host's and the plugins' logs; default: none.
	Logger hclog.Logger
	// StartTimeout bounds the handshake of a starting plugin; default 10s.
	StartTimeout time.Duration
	// Secrets are redacted from every error the host returns: a plugin's
	// own error text and the stderr tail of a plugin that crashed or failed
	// to start (the plugins' log lines go to Logger, whose writer redacts
	// them). nil: none.
	Secrets *redact.Secrets
}

// Host supervises plugin processes. It is safe for concurrent use.
type Host struct {
	opts Options
	self program // what built-in plugins run

	shared *process // the process of the Shared plugins

	mu      sync.Mutex
	plugins map[string]*managed
	closed  bool
}

// New returns a host; Register the plugins it may start.
func New(opts Options) (*Host, error) {
	self, err := selfProgram(opts.SelfExe)
	if err != nil {
		return nil, err
	}
	opts.SelfExe = self.name
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 10 * time.Second
	}
	h := &Host{opts: opts, self: self, plugins: map[string]*managed{}}
	h.shared = newSharedProcess(h)
	return h, nil
}

// Register declares a plugin. Registering a name twice is an error.
func (h *Host) Register(spec Spec) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.plugins[spec.Name]; ok {
		return fmt.Errorf("plugin %q is declared twice", spec.Name)
	}
	m := &managed{spec: spec, host: h, proc: h.shared}
	if spec.Shared {
		if !spec.Builtin || len(spec.Env) > 0 || (spec.Kind != sdk.PluginTool && spec.Kind != sdk.PluginProvider) {
			return fmt.Errorf("plugin %q cannot share a process: only built-in tool and provider plugins without an environment of their own do", spec.Name)
		}
	} else {
		m.proc = newProcess(h, spec)
	}
	h.plugins[spec.Name] = m
	return nil
}

// Specs returns the registered plugins sorted by name.
func (h *Host) Specs() []Spec {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Spec, 0, len(h.plugins))
	for _, m := range h.plugins {
		out = append(out, m.spec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (h *Host) get(name, kind string) (*managed, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, fmt.Errorf("plugin host is closed")
	}
	m, ok := h.plugins[name]
	if !ok {
		return nil, fmt.Errorf("no plugin named %q is declared", name)
	}
	if m.spec.Kind != kind {
		return nil, fmt.Errorf("plugin %q is a %s plugin, not a %s plugin", name, m.spec.Kind, kind)
	}
	return m, nil
}

// Warm starts the named plugins concurrently, so that a run pays for the
// slowest start rather than the sum.
func (h *Host) Warm(ctx context.Context, names ...string) error {
	var g errgroup.Group
	for _, name := range names {
		h.mu.Lock()
		m, ok := h.plugins[name]
		h.mu.Unlock()
		if !ok {
			return fmt.Errorf("no plugin named %q is declared", name)
		}
		g.Go(func() error {
			_, err := m.client(ctx)
			return err
		})
	}
	return g.Wait()
}

// PID returns the process id of a running plugin, 0 when it is not running.
func (h *Host) PID(name string) int {
	h.mu.Lock()
	m := h.plugins[name]
	h.mu.Unlock()
	if m == nil {
		return 0
	}
	return m.pid()
}

// Close stops every plugin, concurrently, each under go-plugin's kill
// timeout (a graceful stop, then SIGKILL).
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	all := make([]*managed, 0, len(h.plugins))
	for _, m := range h.plugins {
		all = append(all, m)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.stop()
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.shared.stop()
	}()
	wg.Wait()
	h.self.close()
}

// KillAll stops every plugin process any host of this process started. The
// command's main defers it, so that a panic or an early return anywhere
// still leaves no plugin behind.
func KillAll() {
	plugin.CleanupClients()
}
