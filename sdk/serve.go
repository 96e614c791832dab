package sdk

import (
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/harness-agent/harness/internal/procguard"
)

// ServeTool serves a tool plugin until the host disconnects. Call it from main.
func ServeTool(impl ToolPlugin) {
	serveSet(plugin.PluginSet{PluginTool: &ToolGRPCPlugin{Impl: impl}})
}

// ServeProvider serves an LLM provider plugin until the host disconnects.
// The process runs Go code on one thread at a time (GOMAXPROCS 1) unless
// the GOMAXPROCS environment variable is set: a provider's work is a chain
// of hand-offs between goroutines (gRPC, HTTP, the stream's parsing, the
// sender of its chunks), and with more than one the runtime wakes another
// thread for every hand-off. On one, a 100-turn session spends 15 % less
// CPU and each late turn 20 % less time.
func ServeProvider(impl Provider) {
	oneProcUnlessSet()
	serveSet(plugin.PluginSet{PluginProvider: &ProviderGRPCPlugin{Impl: impl}})
}

// ServeHook serves a hook plugin until the host disconnects.
func ServeHook(impl Hook) {
	serveSet(plugin.PluginSet{PluginHook: &HookGRPCPlugin{Impl: impl}})
}

// Logger returns the plugin's logger: JSON lines written straight to the
// process's stderr, which the host collects (level from HARNESS_LOG, default
// warn). Log through it rather than printing to os.Stderr: once Serve runs,
// go-plugin forwards os.Stderr asynchronously over gRPC, so a line printed
// just before a crash may be lost, while a logged one reaches the host's
// process_exit report.
func Logger() hclog.Logger {
	loggerOnce.Do(func() {
		level := hclog.LevelFromString(os.Getenv("HARNESS_LOG"))
		if level == hclog.NoLevel {
			level = hclog.Warn
		}
		logger = hclog.New(&hclog.LoggerOptions{
			Name:       "plugin",
			Level:      level,
			Output:     os.Stderr,
			JSONFormat: true,
		})
	})
	return logger
}

var (
	loggerOnce sync.Once
	logger     hclog.Logger

	shutdownMu    sync.Mutex
	shutdownFuncs []func()
)

// OnShutdown registers f to run when the plugin is told to stop or its host
// dies (a plugin that starts processes kills their process groups here).
func OnShutdown(f func()) {
	shutdownMu.Lock()
	defer shutdownMu.Unlock()
	shutdownFuncs = append(shutdownFuncs, f)
}

func runShutdown() {
	shutdownMu.Lock()
	funcs := shutdownFuncs
	shutdownFuncs = nil
	shutdownMu.Unlock()
	for _, f := range funcs {
		f()
	}
}

// oneProcUnlessSet sets GOMAXPROCS to 1 unless the environment sets it.
func oneProcUnlessSet() {
	if _, ok := os.LookupEnv("GOMAXPROCS"); !ok {
		runtime.GOMAXPROCS(1)
	}
}

func serveSet(set plugin.PluginSet) {
	// A plugin may hold secrets (a provider's API key): no other process of
	// the user, the commands the model runs included, may read its memory.
	if err := procguard.Harden(); err != nil {
		Logger().Warn("plugin stays dumpable", "error", err)
	}
	procguard.KeepProgramFDPrivate()
	stop := func(reason string) {
		Logger().Debug("plugin stopping", "reason", reason)
		runShutdown()
		os.Exit(1)
	}
	watchParent(func() { stop("host died") })
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	go func() { stop((<-sigs).String()) }()

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{ProtocolVersion: set},
		GRPCServer:       grpcServer,
		Logger:           Logger(),
	})
	runShutdown()
}
