package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/catalog"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/mcp"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/prompt"
	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Options configure a run.
type Options struct {
	Config    *config.Config
	Agent     string // "" runs the first agent
	StorePath string // the session store's file (session.Locator); a legacy .harness store is imported
	StateDir  string // the folder holding only the store (session.Locator.StateFolder), protected whole; may be ""
	Builtins  []catalog.Builtin
	SelfExe   string // the binary serving built-in plugins; "" = this one
	Logger    hclog.Logger
	Yes       bool // --yes
	// AcceptConfigChange resumes a session whose configuration changed
	// since it ran (--accept-config-change); otherwise Resume refuses.
	AcceptConfigChange bool
	Asker              approval.Asker // nil when nobody can answer
	Sink               func(session.Event)
	Now                func() time.Time
	RetryWait          llm.Sleeper // nil: real sleeps
	// LeaseOwner, when set, is the owner of the session's lease instead of
	// a random one: every worker of a Temporal task queue holds a session
	// as the same owner, so a restarted worker takes it over at once.
	LeaseOwner string
	// Engine, when set, is recorded in session.started as "engine": where
	// the session runs (`harness actions approve` signals it there).
	Engine *event.Engine
	// Secrets is the process's set of values never to show (the caller
	// redacts its own output and logs through it); the run adds the
	// providers' keys and secret settings. nil: the run keeps its own.
	Secrets *redact.Secrets
}

// Runner is one agent's run in one session.
type Runner struct {
	opts  Options
	cfg   *config.Config
	agent *config.Agent
	host  *pluginhost.Host
	// providersMu makes registering and configuring a provider block's
	// process happen once.
	providersMu sync.Mutex
	catalog     *catalog.Catalog
	store       *session.Store
	registry    *tools.Registry
	bridge      *mcp.Bridge // the MCP servers of the agent's tools
	hooks       []tools.Hook
	protected   []approval.Protected
	executor    *tools.Executor
	pipeline    *approval.Pipeline
	bindings    []llm.Binding
	models      *llm.Registry
	client      *llm.Client
	streamHooks []llm.StreamHook
	system      string

	// warmed is closed when the agent's tool plugins have started, the
	// configuration is checked against what they offer (checked) and, if
	// it holds and the store opened, the agent's tools are set up
	// (toolsErr: prepareTools).
	warmed   chan struct{}
	checked  hcl.Diagnostics
	toolsErr error
	session  string
	// lease is this run's hold on its session; stopBeat stops its
	// heartbeat (nil while nothing is held).
	lease    session.Lease
	stopBeat func()
	// released says the session's end let its lease go (EndSession), so
	// Close has nothing to release.
	released bool
	// stopping stops the plugins and MCP servers once (StopPlugins);
	// stopped is closed when they are stopped.
	stopping sync.Once
	stopped  chan struct{}
	rec      *tools.StoreRecorder
	loopCfg  agent.Config
	loop     *agent.Loop
	msgs     []sdk.Message
}

// Open prepares a run: the plugins are registered, and those the agent
// needs start concurrently (its tool plugins, and the providers whose
// models it must list); the store opens meanwhile. Once the tool plugins
// have described what they offer, the configuration is checked against it
// and the agent's tools are set up, while the providers still start; no
// session exists yet. Close releases everything.
func Open(ctx context.Context, opts Options) (*Runner, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg := opts.Config
	ag := cfg.Agent(opts.Agent)
	if ag == nil {
		return nil, fmt.Errorf("no agent named %q in %s", opts.Agent, cfg.Path)
	}
	if opts.Secrets == nil {
		opts.Secrets = &redact.Secrets{}
	}
	// The keys are known before any plugin starts: a provider that echoes
	// its key in an error or a log line is redacted from the first.
	addConfigSecrets(opts.Secrets, cfg)
	host, err := pluginhost.New(pluginhost.Options{SelfExe: opts.SelfExe, Logger: opts.Logger, Secrets: opts.Secrets})
	if err != nil {
		return nil, err
	}
	r := &Runner{opts: opts, cfg: cfg, agent: ag, host: host, lease: session.NewLease()}
	if opts.LeaseOwner != "" {
		r.lease.Owner = opts.LeaseOwner
	}
	cat, diags := catalog.New(cfg, host, opts.Builtins)
	if diags.HasErrors() {
		host.Close()
		return nil, &ConfigError{Diags: diags}
	}
	r.catalog = cat
	// Start the tool plugins while the providers start: a run pays for the
	// slowest start, not the sum. What they offer is checked against the
	// configuration as `validate` checks it, before any session exists,
	// and the agent's tools are set up while the providers still start.
	// This goroutine is started first: it starts a plugin process, the
	// longest wait of the run, and a goroutine started after it could run
	// on the idle processor before it.
	type opened struct {
		store *session.Store
		err   error
	}
	storeCh := make(chan opened, 1)
	var st opened
	r.warmed = make(chan struct{})
	go func() {
		defer close(r.warmed)
		_ = cat.DescribeFor(ctx, ag.Tools)
		r.checked = r.check()
		st = <-storeCh
		if !r.checked.HasErrors() && st.err == nil && ctx.Err() == nil {
			r.store = st.store
			r.toolsErr = r.setupTools(ctx)
		}
	}()
	// The store opens while the plugins start, and so do the metaschemas
	// the tools' input schemas are checked against when a tool may not be
	// a built-in (a built-in's schema is the build's own, not checked
	// again: tools.Registry.Add); a configuration problem is still
	// reported before a store problem.
	go func() {
		st, err := openStore(ctx, opts.StorePath, cfg.Workspace)
		storeCh <- opened{st, err}
	}()
	if !onlyBuiltinTools(cfg, cat) {
		go tools.WarmSchemas()
	}
	modelsErr := r.openModels(ctx)
	<-r.warmed
	fail := func(err error) (*Runner, error) {
		if r.bridge != nil {
			r.bridge.Close()
		}
		if st.store != nil {
			_ = st.store.Close()
		}
		host.Close()
		return nil, err
	}
	if r.checked.HasErrors() && ctx.Err() == nil {
		return fail(&ConfigError{Diags: r.checked})
	}
	if modelsErr != nil {
		return fail(modelsErr)
	}
	if st.err != nil {
		return fail(st.err)
	}
	if r.store == nil { // the context ended before the tools were set up
		r.store, r.toolsErr = st.store, ctx.Err()
	}
	return r, nil
}

// ConfigError is a problem of the configuration found when the run
// opened: the diagnostics `validate` reports for it.
type ConfigError struct{ Diags hcl.Diagnostics }

func (e *ConfigError) Error() string { return e.Diags.Error() }

// check is what `validate` checks, for what this run uses, once the
// agent's tool plugins described what they offer: plugins that cannot
// start (checksum mismatch included), the agent's tool names and the
// config blocks of the plugins that started. Plugins the agent does not
// need are not started, so their problems are left to `validate`.
func (r *Runner) check() hcl.Diagnostics {
	var diags hcl.Diagnostics
	sub := *r.cfg
	sub.Agents = []*config.Agent{r.agent}
	sub.Plugins = nil
	for _, p := range r.cfg.Plugins {
		cp, ok := r.catalog.Plugin(p.Name)
		switch {
		case !ok || cp.Err == nil && cp.Info.Name == "" && len(cp.Info.Tools) == 0:
			// not started: nothing this run relies on
		case cp.Err != nil:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Plugin unusable",
				Detail: cp.Err.Error(), Subject: p.DeclRange.Ptr()})
		default:
			sub.Plugins = append(sub.Plugins, p)
		}
	}
	if !diags.HasErrors() {
		diags = append(diags, config.Check(&sub, r.catalog)...)
	}
	return diags
}

// openStore opens the store at path and imports the sessions of the
// workspace's legacy store, so that they can be listed and resumed.
func openStore(ctx context.Context, path, workspace string) (*session.Store, error) {
	if path == "" {
		return nil, errors.New("runner: no session store given")
	}
	store, err := session.Open(path)
	if err != nil {
		return nil, err
	}
	if _, err := store.ImportLegacy(ctx, session.LegacyPath(workspace)); err != nil {
		_ = store.Close()
		return nil, err
	}
	return store, nil
}

// Agent returns the agent being run.
func (r *Runner) Agent() *config.Agent { return r.agent }

// SessionID returns the session's id once Start or Resume ran.
func (r *Runner) SessionID() string { return r.session }

// Store returns the session store.
func (r *Runner) Store() *session.Store { return r.store }

// Host returns the plugin host.
func (r *Runner) Host() *pluginhost.Host { return r.host }

// openModels configures the providers the agent and its summarizer use
// (lazily: a provider plugin starts on its first request) and resolves
// their models.
func (r *Runner) openModels(ctx context.Context) error {
	var decls []llm.ModelDecl
	for _, m := range r.cfg.Models {
		d := llm.ModelDecl{Name: m.Name, Provider: m.Provider, ID: m.ID, ContextWindow: m.ContextWindow,
			MaxOutput: m.MaxOutput, Thinking: m.Thinking, ThinkingBudget: m.ThinkingBudget, ReplayReasoning: m.ReplayReasoning}
		if m.Pricing != nil {
			d.Pricing = &sdk.Pricing{InputCacheHit: m.Pricing.InputCacheHit, InputCacheMiss: m.Pricing.InputCacheMiss,
				Output: m.Pricing.Output, InputCacheWrite: m.Pricing.InputCacheWrite}
		}
		decls = append(decls, d)
	}
	models, err := llm.NewRegistry(decls, func(ctx context.Context, name string) ([]sdk.ModelInfo, error) {
		h, err := r.providerHandle(ctx, name)
		if err != nil {
			return nil, err
		}
		return h.Models(ctx)
	})
	if err != nil {
		return err
	}
	r.models = models
	if r.bindings, err = models.ResolveAll(ctx, r.agent.Models); err != nil {
		return err
	}
	// A third-party provider starts now: its settings are checked against
	// its schema before a session exists, and its secrets are known to the
	// redaction of tool results.
	for _, b := range r.bindings {
		if p := r.cfg.Provider(b.Provider); p != nil && p.Settings != nil {
			if _, err := r.providerHandle(ctx, b.Provider); err != nil {
				return err
			}
		}
	}
	if r.streamHooks, err = streamHooks(r.cfg, r.host); err != nil {
		return err
	}
	r.client = llm.NewClient(r.streamerFor, llm.Options{Budget: r.budgetCheck, Sleep: r.opts.RetryWait,
		StreamHooks: r.streamHooks, Logger: r.opts.Logger})
	return nil
}

// streamHooks subscribes the configuration's hook plugins that name
// llm/stream to every model request, each call bounded by the block's
// timeout.
func streamHooks(cfg *config.Config, host *pluginhost.Host) ([]llm.StreamHook, error) {
	var hooks []llm.StreamHook
	for _, h := range cfg.Hooks {
		if !slices.Contains(h.Phases, sdk.PhaseLLMStream) {
			continue
		}
		handle, err := host.Hook(h.Name)
		if err != nil {
			return nil, err
		}
		hooks = append(hooks, llm.StreamHook{Name: h.Name, Timeout: h.Timeout, Handle: handle.Handle})
	}
	return hooks, nil
}

func (r *Runner) budgetCheck(ctx context.Context) error {
	if r.loop == nil {
		return nil
	}
	return r.loop.BudgetCheck(ctx)
}

// streamer adapts a provider plugin handle to the llm layer. What the
// provider streams is redacted like its errors: a provider that puts its
// key in its answer does not hand it to the conversation, and so to the
// next request, another provider or a hook.
type streamer struct {
	h       *pluginhost.ProviderHandle
	secrets *redact.Secrets
}

func (s streamer) Prepare(ctx context.Context, b llm.Binding) (sdk.Handle, error) {
	return s.h.PrepareCall(ctx, b.PrepareRequest())
}

func (s streamer) Stream(ctx context.Context, h sdk.Handle, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	return s.h.Stream(ctx, h, req, func(c sdk.StreamChunk) error {
		c.Text = s.secrets.String(c.Text)
		if c.Err != nil {
			e := *c.Err
			e.Message = s.secrets.String(e.Message)
			c.Err = &e
		}
		return emit(c)
	})
}

// build assembles the session's tools, prompt and loop.
func (r *Runner) build(ctx context.Context) error {
	if r.rec == nil {
		r.rec = r.newRecorder()
	}
	if err := r.prepareTools(ctx); err != nil {
		return err
	}
	reg, hooks, protected := r.registry, r.hooks, r.protected
	pipeline, err := approval.New(approval.Options{
		Store: r.store, Session: r.session, Workspace: r.cfg.Workspace, Permissions: r.agent.Permissions,
		Protected: protected, Secret: secretFiles(r.cfg), Recorder: r.rec, Yes: r.opts.Yes, Asker: r.opts.Asker, Logger: r.opts.Logger,
	})
	if err != nil {
		return err
	}
	r.pipeline = pipeline
	ex, err := tools.NewExecutor(reg, tools.Options{
		Session: r.session, Agent: r.agent.Name, Whitelist: r.agent.Tools,
		Approver: pipeline, Recorder: r.rec, Hooks: hooks, Logger: r.opts.Logger,
		ProgressStoreBytes: progressStoreBytes(r.agent.Permissions),
		Secrets:            r.secrets(),
	})
	if err != nil {
		return err
	}
	r.executor = ex
	r.system = r.systemPrompt(ex.Definitions())
	r.loopCfg = agent.Config{
		Session:   r.session,
		Agent:     r.agent.Name,
		Bindings:  r.bindings,
		MaxTurns:  r.agent.MaxTurns,
		MaxTokens: r.agent.Budget.MaxTokens,
		MaxUSD:    r.agent.Budget.MaxUSD,
		ReadOnly:  r.readOnly,
		Compactor: r.compactor(ctx),
		// A stream hook plugin sees each request: what it sees is stored first.
		CommitBeforeRequest: len(r.streamHooks) > 0,
	}
	r.loop = agent.New(r.loopCfg, r.client, ex, r.rec, r.rec) // usage rows commit with the events
	return nil
}

// prepareTools returns how setting up the agent's tools went: what can
// fail for reasons of configuration fails here, before a new session is
// created. Open set them up while the providers started.
func (r *Runner) prepareTools(context.Context) error {
	<-r.warmed
	return r.toolsErr
}

// setupTools starts the agent's tool sources (plugins, MCP servers) and
// hooks, once the configuration is checked and the store is open.
func (r *Runner) setupTools(ctx context.Context) error {
	protected := protectedPaths(r.cfg, r.store.File(), r.opts.StateDir, r.opts.SelfExe)
	reg, err := tools.Build(ctx, tools.Setup{Config: r.cfg, Agent: r.agent, Catalog: r.catalog, Logger: r.opts.Logger,
		Protected: approval.ProtectedPaths(protected)})
	if err != nil {
		return err
	}
	r.bridge = mcp.New(r.cfg, r.agent, r.opts.Logger)
	if err := r.bridge.Register(ctx, reg); err != nil {
		return err
	}
	hooks, err := tools.PluginHooks(r.cfg, r.host)
	if err != nil {
		return err
	}
	r.registry, r.hooks, r.protected = reg, hooks, protected
	return nil
}

// addConfigSecrets adds what the configuration says is secret: every
// provider's api_key and the built-ins' settings their schema marks
// secret.
func addConfigSecrets(s *redact.Secrets, cfg *config.Config) {
	for _, p := range cfg.Providers {
		s.Add(p.APIKey)
		s.Add(p.Secrets...)
	}
}

// secrets are the values no tool result or event may carry: the
// providers' keys and the settings their schemas mark secret (a
// third-party provider's once it is configured).
func (r *Runner) secrets() []string { return r.opts.Secrets.Values() }

func (r *Runner) readOnly(name string) bool {
	t, ok := r.registry.Tool(name)
	return ok && !t.Spec.Writes && !t.Spec.Executes
}

func (r *Runner) systemPrompt(defs []sdk.ToolDefinition) string {
	visible := make([]prompt.Tool, len(defs))
	for i, d := range defs {
		visible[i] = prompt.Tool{Name: d.Name, Description: d.Description}
	}
	hidden := len(r.registry.Names()) - len(defs)
	return prompt.System(r.agent, visible, max(hidden, 0))
}

// compactor summarizes with the summarizer agent's models, through a
// client that retries at most once, quickly (DESIGN §7).
func (r *Runner) compactor(ctx context.Context) *agent.Compactor {
	if len(r.bindings) == 0 || r.bindings[0].Model.ContextWindow <= 0 {
		return nil
	}
	c := &agent.Compactor{
		ContextWindow: r.bindings[0].Model.ContextWindow,
		Threshold:     r.agent.Context.Threshold,
		KeepRecent:    r.agent.Context.KeepRecent,
		Timeout:       r.agent.Context.SummaryTimeout,
	}
	if sum := r.cfg.SummarizerAgent(r.agent); sum != nil {
		if b, err := r.models.ResolveAll(ctx, sum.Models); err == nil {
			c.Bindings = b
			retry := llm.RetryPolicy{MaxRetries: 1, BaseDelay: 200 * time.Millisecond, MaxRetryAfter: time.Second}
			c.Model = llm.NewClient(func(name string) (llm.Streamer, error) {
				return r.streamerFor(name)
			}, llm.Options{Retry: &retry, Budget: r.budgetCheck, Sleep: r.opts.RetryWait,
				StreamHooks: r.streamHooks, Logger: r.opts.Logger})
		}
	}
	return c
}

func (r *Runner) streamerFor(name string) (llm.Streamer, error) {
	h, err := r.providerHandle(context.Background(), name)
	if err != nil {
		return nil, err
	}
	return streamer{h: h, secrets: r.opts.Secrets}, nil
}

// providerHandle returns the plugin process of a provider block, sending
// it the block on first use (the host replays it to a restarted process).
// Each block gets its own process, so two blocks on one built-in provider
// keep their own endpoint and key; a block on a built-in that holds no
// secret (provider-script) is a plugin of its own in the shared process.
func (r *Runner) providerHandle(ctx context.Context, name string) (*pluginhost.ProviderHandle, error) {
	r.providersMu.Lock()
	defer r.providersMu.Unlock()
	id := "provider." + name
	if h, err := r.host.Provider(id); err == nil {
		return h, nil
	}
	p := r.cfg.Provider(name)
	if p == nil {
		return nil, fmt.Errorf("no provider named %q", name)
	}
	if p.Settings != nil {
		return r.thirdPartyProvider(ctx, id, p)
	}
	if !r.catalog.HasProviderPlugin(p.Plugin) {
		return nil, fmt.Errorf("provider %q: %q is not a built-in provider plugin", name, p.Plugin)
	}
	builtin, _ := r.catalog.Plugin(p.Plugin)
	spec := pluginhost.Spec{Name: id, Kind: sdk.PluginProvider, Builtin: true, Serves: p.Plugin, Shared: builtin.Spec.Shared}
	if err := r.host.Register(spec); err != nil {
		return nil, err
	}
	h, err := r.host.Provider(id)
	if err != nil {
		return nil, err
	}
	if p.Config == nil {
		return nil, fmt.Errorf("provider %q: the settings of built-in plugin %q were not decoded: load the configuration with config.LoadWith and the built-ins' schemas", name, p.Plugin)
	}
	if err := h.Configure(ctx, p.Config); err != nil {
		return nil, fmt.Errorf("provider %q: %w", name, err)
	}
	return h, nil
}

// thirdPartyProvider starts the plugin block a provider block names, as a
// process of its own verified like the block's (same path, same expected
// sha256), decodes the block's settings against the schema the plugin
// reports and configures it with them. The settings marked secret join
// the values redacted from tool results.
func (r *Runner) thirdPartyProvider(ctx context.Context, id string, p *config.Provider) (*pluginhost.ProviderHandle, error) {
	block, ok := r.catalog.Plugin(p.Plugin)
	if !ok || block.Spec.Kind != sdk.PluginProvider {
		return nil, fmt.Errorf("provider %q: plugin block %q is not a provider plugin", p.Name, p.Plugin)
	}
	spec := block.Spec
	spec.Name = id
	if err := r.host.Register(spec); err != nil {
		return nil, err
	}
	h, err := r.host.Provider(id)
	if err != nil {
		return nil, err
	}
	schema, err := h.SettingsSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("provider %q: plugin %q: %w", p.Name, p.Plugin, err)
	}
	settings, diags := p.DecodeSettings(schema)
	if diags.HasErrors() {
		return nil, &ConfigError{Diags: diags}
	}
	r.opts.Secrets.Add(config.SecretSettings(schema, settings)...)
	if err := h.Configure(ctx, settings); err != nil {
		return nil, fmt.Errorf("provider %q: %w", p.Name, err)
	}
	return h, nil
}

// keepAlive refreshes the run's lease on its session until Close.
func (r *Runner) keepAlive() {
	r.stopBeat = r.store.KeepAlive(r.session, r.lease.Owner, func(err error) {
		r.opts.Logger.Warn("session lease", "session", r.session, "error", err)
	})
}

// Executor builds the tool executor of a recorded session, for actions a
// person approves after its run (`harness actions approve`). It holds the
// session's lease until Close: a session that a live run holds is refused.
func (r *Runner) Executor(ctx context.Context, sessionID string) (*tools.Executor, error) {
	if err := r.store.Hold(ctx, sessionID, r.lease); err != nil {
		return nil, err
	}
	r.session = sessionID
	r.keepAlive()
	if err := r.build(ctx); err != nil {
		return nil, err
	}
	return r.executor, nil
}

// PrepareModel has the provider prepare the agent's first model now, in
// the background, for a run whose loop runs in this process: its
// PrepareCall is then done while the session is created or reopened, off
// the first request's path. Close may follow at any time.
func (r *Runner) PrepareModel(ctx context.Context) {
	if len(r.bindings) > 0 {
		go r.client.Prepare(ctx, r.bindings[0])
	}
}

// Start opens a new session with the task as its first message.
func (r *Runner) Start(ctx context.Context, task string) error {
	model := ""
	if len(r.bindings) > 0 {
		model = r.bindings[0].Name
	}
	// What fails for reasons of configuration fails before the session
	// exists: such a run leaves no session behind.
	if err := r.prepareTools(ctx); err != nil {
		return err
	}
	text := prompt.TaskMessage(task, r.opts.Now().Format("2006-01-02"), r.cfg.Workspace)
	// The session and its session.started event commit in one transaction.
	r.rec = r.newRecorder()
	info, err := r.rec.Begin(ctx, session.SessionInfo{Agent: r.agent.Name, Model: model,
		ConfigPath: r.cfg.Path, ConfigHash: r.cfg.Fingerprint(), Workspace: r.cfg.Workspace, Lease: r.lease},
		event.SessionStarted{Agent: r.agent.Name, Model: model, Workspace: r.cfg.Workspace, Config: r.cfg.Path, Task: text, Engine: r.opts.Engine})
	if err != nil {
		r.rec = nil
		return err
	}
	r.session = info.ID
	r.keepAlive()
	// What failing to build records follows session.started.
	if err := r.build(ctx); err != nil {
		e := sdk.AsError(err)
		_ = r.rec.Record(ctx, event.Error{Kind: e.Kind, Message: e.Message})
		return err
	}
	r.msgs = []sdk.Message{{Role: sdk.RoleSystem, Content: r.system}, {Role: sdk.RoleUser, Content: text}}
	return nil
}

// Resume reopens a recorded session and rebuilds its conversation.
func (r *Runner) Resume(ctx context.Context, id string) error {
	info, err := r.store.Session(ctx, id)
	if err != nil {
		return err
	}
	if info.Agent != r.agent.Name {
		return fmt.Errorf("session %s ran agent %q, not %q: pass --agent %s", info.ID, info.Agent, r.agent.Name, info.Agent)
	}
	if !r.opts.AcceptConfigChange {
		if err := CheckConfig(info, r.cfg, "resume", false); err != nil {
			return err
		}
	}
	// The lease first: the events read next are then this run's alone.
	if err := r.store.ReopenSession(ctx, info.ID, r.cfg.Fingerprint(), r.lease); err != nil {
		return err
	}
	r.session = info.ID
	r.keepAlive()
	if err := r.build(ctx); err != nil {
		return err
	}
	// Actions approved on a machine without this workspace (a shared
	// store, docs/scale.md) run here, now, before the conversation is
	// rebuilt with their results.
	if _, err := approval.RunDecided(ctx, r.store, r.executor, r.rec, info.ID); err != nil {
		return fmt.Errorf("session %s: run the actions approved since: %w", info.ID, err)
	}
	events, err := r.store.Events(ctx, info.ID, 0)
	if err != nil {
		return err
	}
	rebuilt, err := agent.Rebuild(events)
	if err != nil {
		return fmt.Errorf("session %s: %w", info.ID, err)
	}
	totals, err := r.store.UsageTotals(ctx, info.ID)
	if err != nil {
		return err
	}
	pending, err := r.store.Actions(ctx, info.ID, session.ActionStatusPending)
	if err != nil {
		return err
	}
	ids := make([]string, len(pending))
	for i, a := range pending {
		ids[i] = a.ID
	}
	r.loop.Restore(rebuilt.Turns, totals.PromptTokens+totals.CompletionTokens, totals.CostUSD, ids)
	r.executor.CountPrior(rebuilt.Calls...)
	r.pipeline.Remember(approval.RememberedScopes(events)...)
	r.msgs = append([]sdk.Message{{Role: sdk.RoleSystem, Content: r.system}}, rebuilt.Messages...)
	return r.rec.Record(ctx, event.SessionResumed{Agent: r.agent.Name, Turns: rebuilt.Turns, Messages: len(rebuilt.Messages), Engine: r.opts.Engine})
}

// Remembered returns the scopes a person approved with "always" in this
// session (restored on resume), sorted.
func (r *Runner) Remembered() []string {
	if r.pipeline == nil {
		return nil
	}
	return r.pipeline.Remembered()
}

// NeedsInput reports whether the conversation waits for a user message:
// the model already answered the last one.
func (r *Runner) NeedsInput() bool {
	if len(r.msgs) == 0 {
		return true
	}
	last := r.msgs[len(r.msgs)-1]
	return last.Role == sdk.RoleAssistant && len(last.ToolCalls) == 0
}

// Say records a user message and adds it to the conversation.
func (r *Runner) Say(ctx context.Context, text string) error {
	if err := r.rec.Record(ctx, event.UserMessage{Text: text}); err != nil {
		return err
	}
	r.msgs = append(r.msgs, sdk.Message{Role: sdk.RoleUser, Content: text})
	return nil
}

// Send adds a user message (when text is not empty) and runs the loop.
func (r *Runner) Send(ctx context.Context, text string) (agent.Outcome, error) {
	if text != "" {
		if err := r.Say(ctx, text); err != nil {
			return agent.Outcome{}, err
		}
	}
	var out agent.Outcome
	r.msgs, out = r.loop.Run(ctx, r.msgs)
	return out, nil
}

// Interrupted closes a turn a person stopped: the answer's partial text
// stays in the conversation, marked as interrupted, so the next message
// reads in context and the model knows it was cut off.
func (r *Runner) Interrupted(ctx context.Context, partial string) error {
	// Cut while the model answered (the last message is the person's), not
	// while the turn's tools ran: that request counts as a turn on resume.
	request := len(r.msgs) > 0 && r.msgs[len(r.msgs)-1].Role == sdk.RoleUser
	r.msgs = append(r.msgs, agent.InterruptedMessage(partial))
	return r.rec.Record(context.WithoutCancel(ctx), event.TurnInterrupted{Partial: partial, Request: request})
}

// Totals returns the session's counters.
func (r *Runner) Totals() agent.Totals {
	if r.loop == nil {
		return agent.Totals{}
	}
	return r.loop.Totals()
}

// End records session.ended and closes the session with status.
func (r *Runner) End(ctx context.Context, status string) error {
	return r.EndWith(ctx, status, r.Totals())
}

// EndWith is End with the totals of an engine that ran the loop elsewhere
// (a Temporal workflow).
func (r *Runner) EndWith(ctx context.Context, status string, t agent.Totals) error {
	if r.session == "" {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	if r.stopBeat != nil {
		r.stopBeat() // EndSession lets the lease go
	}
	if r.rec == nil { // a resume that failed before its tools were built
		r.rec = r.newRecorder()
	}
	// Every event is committed and shown (the recorder's background
	// commits included) before the run's closing line is printed; the
	// last of them, session.ended, commits with the session's end.
	err := r.rec.End(ctx, event.SessionEnded{Status: status, Turns: t.Turns, Tokens: t.Tokens, CostUSD: t.CostUSD, PendingActions: t.Pending}, status, t.Turns)
	if err != nil {
		return err
	}
	r.released = true
	return nil
}

// StopPlugins begins stopping every plugin process and MCP server and
// returns at once: a run whose loop is done needs none of them to record
// its end and print its result, so they stop meanwhile. Close waits until
// they are stopped (reaped); no plugin call may follow.
func (r *Runner) StopPlugins() {
	r.stopping.Do(func() {
		r.stopped = make(chan struct{})
		go func() {
			defer close(r.stopped)
			<-r.warmed
			if r.bridge != nil {
				r.bridge.Close()
			}
			r.host.Close()
		}()
	})
}

// Close stops every plugin, lets go of the session's lease and closes the
// store. The plugins stop while the store closes, and both are done before
// Close returns: a store that fails or is slow to close still leaves no
// plugin running.
func (r *Runner) Close() error { return r.shutdown(r.closeStore) }

// shutdown stops the plugins while closeStore runs and returns its error
// once they are stopped too.
func (r *Runner) shutdown(closeStore func() error) error {
	r.StopPlugins()
	err := closeStore()
	<-r.stopped
	return err
}

// closeStore lets go of the session's lease, unless its end already did,
// and closes the store.
func (r *Runner) closeStore() error {
	if r.stopBeat != nil {
		r.stopBeat()
		if !r.released {
			_ = r.store.Release(context.Background(), r.session, r.lease.Owner)
		}
	}
	return r.store.Close()
}

// newRecorder returns what commits the session's events and then hands them
// to the sink, in sequence order, without the run's secrets.
func (r *Runner) newRecorder() *tools.StoreRecorder {
	return &tools.StoreRecorder{Store: r.store, Session: r.session, Sink: r.opts.Sink,
		Redact: (&eventRedactor{secrets: r.secrets}).redact}
}

// onlyBuiltinTools reports whether every tool a run of cfg may register is
// a built-in's: no third-party plugin, no MCP server.
func onlyBuiltinTools(cfg *config.Config, cat *catalog.Catalog) bool {
	if len(cfg.MCPServers) > 0 {
		return false
	}
	for _, p := range cat.Plugins() {
		if !p.Spec.Builtin {
			return false
		}
	}
	return true
}

// eventRedactor takes the run's secrets out of the events it stores. Its
// JSON replacer is built again only when the secrets change: building one,
// and its lookup table on first use, for every event cost more than the
// redaction itself.
type eventRedactor struct {
	secrets func() []string

	mu     sync.Mutex
	built  bool
	values []string         // the secrets rep was built from
	rep    *redact.Replacer // nil when none is long enough to redact
}

func (e *eventRedactor) redact(d event.Data) (any, bool) { return redactEvent(d, e.replacer()) }

func (e *eventRedactor) replacer() *redact.Replacer {
	values := e.secrets()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.built || !slices.Equal(values, e.values) {
		e.built, e.values, e.rep = true, values, redact.NewJSONReplacer(values, redact.Marker)
	}
	return e.rep
}

// redactEvent returns d as JSON with every secret of rep (a
// redact.NewJSONReplacer: of redact.MinLen bytes or more, also where JSON
// escapes them) replaced by [redacted], d itself when rep is nil, and
// whether that still encodes d exactly (no secret was found).
func redactEvent(d event.Data, rep *redact.Replacer) (any, bool) {
	if rep == nil {
		return d, true
	}
	b, err := session.EncodeData(d)
	if err != nil {
		return d, true // the store's own encoding fails the same way
	}
	// Stored as it is, not encoded again; copied only when redacted (b is
	// not changed after this).
	s := unsafe.String(unsafe.SliceData(b), len(b))
	r := rep.Replace(s)
	if r == s {
		return session.Encoded(b), true
	}
	return session.Encoded(r), false
}

// Messages returns the conversation so far (system prompt, task, ...).
func (r *Runner) Messages() []sdk.Message { return r.msgs }

// LoopConfig returns the settings the session's loop runs with, once
// Start, Resume or Executor built it.
func (r *Runner) LoopConfig() agent.Config { return r.loopCfg }

// ToolDefinitions returns the schemas of the agent's tools once Start,
// Resume or Executor built its executor.
func (r *Runner) ToolDefinitions() []sdk.ToolDefinition {
	if r.executor == nil {
		return nil
	}
	return r.executor.Definitions()
}

// Client returns the agent's model client.
func (r *Runner) Client() agent.Model { return r.client }

// Recorder returns what commits the session's events (and hands them to
// the sink).
func (r *Runner) Recorder() tools.Recorder { return r.rec }

// progressStoreBytes is the executor's bound on stored progress from
// permissions.terminal_store_bytes, where 0 keeps none.
func progressStoreBytes(p config.Permissions) int64 {
	if p.TerminalStoreBytes == 0 {
		return -1
	}
	return p.TerminalStoreBytes
}
