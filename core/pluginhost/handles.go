package pluginhost

import (
	"context"
	"encoding/json"

	"github.com/harness-agent/harness/sdk"
)

// Tool returns the named tool plugin. It implements sdk.ToolPlugin; the
// process starts on first use, and after a crash the next call starts a
// fresh one and replays the last Configure.
func (h *Host) Tool(name string) (*ToolHandle, error) {
	m, err := h.get(name, sdk.PluginTool)
	if err != nil {
		return nil, err
	}
	return &ToolHandle{m: m}, nil
}

// ToolHandle is a lazily started, self-healing tool plugin. Handles of
// one plugin share its process and its configuration.
type ToolHandle struct {
	m *managed
}

var _ sdk.ToolPlugin = (*ToolHandle)(nil)

func (t *ToolHandle) client(ctx context.Context) (*sdk.ToolClient, error) {
	raw, err := t.m.configured(ctx)
	if err != nil {
		return nil, err
	}
	return raw.(*sdk.ToolClient), nil
}

// Describe implements sdk.ToolPlugin.
func (t *ToolHandle) Describe(ctx context.Context) (sdk.PluginInfo, error) {
	c, err := t.client(ctx)
	if err != nil {
		return sdk.PluginInfo{}, err
	}
	info, err := c.Describe(ctx)
	if err == nil && c.OrdersConfigure() {
		t.m.ordered.Store(true)
	}
	return info, t.m.callError(ctx, c, err)
}

// Configure implements sdk.ToolPlugin. The config is kept and replayed on
// every fresh process. It starts the plugin if needed; a plugin that
// orders calls after Configure (every built-in, and a third-party plugin
// whose Describe said so) is not waited for: the next call on the plugin
// is sent at once, runs only once the plugin is configured, and fails with
// this Configure's error if the plugin refused the configuration. Callers
// that must know the answer now call Configured.
func (t *ToolHandle) Configure(ctx context.Context, cfg sdk.PluginConfig) error {
	return t.m.configure(ctx, func(ctx context.Context, raw any, seq uint64) error {
		return raw.(*sdk.ToolClient).ConfigureSeq(ctx, cfg, seq)
	})
}

// Configured waits until the running plugin has answered the last
// Configure and returns its refusal, if any (starting and configuring a
// fresh process if needed).
func (t *ToolHandle) Configured(ctx context.Context) error {
	_, err := t.client(ctx)
	return err
}

// Execute implements sdk.ToolPlugin. Sent right behind a Configure not yet
// answered (see Configure), it names it, and its outcome is the Configure's
// failure when there is one.
func (t *ToolHandle) Execute(ctx context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error) {
	raw, p, err := t.m.pipelined(ctx)
	if err != nil {
		return sdk.Result{}, err
	}
	c := raw.(*sdk.ToolClient)
	if p == nil {
		res, err := c.Execute(ctx, call, progress)
		return res, t.m.callError(ctx, c, err)
	}
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// A Configure that failed in the host (the plugin never settled
		// it) must not leave the plugin's side of the call waiting.
		select {
		case <-p.done:
			if p.err != nil {
				cancel()
			}
		case <-ectx.Done():
		}
	}()
	res, err := c.ExecuteAfter(ectx, call, progress, p.seq)
	if cerr := t.m.await(ctx, p); cerr != nil {
		return sdk.Result{}, cerr
	}
	return res, t.m.callError(ctx, c, err)
}

// Provider returns the named provider plugin.
func (h *Host) Provider(name string) (*ProviderHandle, error) {
	m, err := h.get(name, sdk.PluginProvider)
	if err != nil {
		return nil, err
	}
	return &ProviderHandle{m: m}, nil
}

// ProviderHandle is a lazily started, self-healing provider plugin. A fresh
// process is configured again before use, which starts a new adapter
// generation: handles prepared on the old process are refused as stale.
type ProviderHandle struct {
	m *managed
}

func (p *ProviderHandle) client(ctx context.Context) (*sdk.ProviderClient, error) {
	raw, err := p.m.configured(ctx)
	if err != nil {
		return nil, err
	}
	return raw.(*sdk.ProviderClient), nil
}

// Configure sends the provider block (JSON); it is replayed on restarts.
func (p *ProviderHandle) Configure(ctx context.Context, config []byte) error {
	return p.m.configure(ctx, func(ctx context.Context, raw any, _ uint64) error {
		return raw.(*sdk.ProviderClient).Configure(ctx, config)
	})
}

// SettingsSchema returns the JSON Schema the provider reports for its
// settings (nil: none); it needs no Configure first.
func (p *ProviderHandle) SettingsSchema(ctx context.Context) (json.RawMessage, error) {
	raw, err := p.m.client(ctx)
	if err != nil {
		return nil, err
	}
	c := raw.(*sdk.ProviderClient)
	schema, err := c.SettingsSchema(ctx)
	return schema, p.m.callError(ctx, c, err)
}

// Models lists the provider's model metadata.
func (p *ProviderHandle) Models(ctx context.Context) ([]sdk.ModelInfo, error) {
	c, err := p.client(ctx)
	if err != nil {
		return nil, err
	}
	models, err := c.Models(ctx)
	return models, p.m.callError(ctx, c, err)
}

// PrepareCall binds model metadata to the provider's current generation.
func (p *ProviderHandle) PrepareCall(ctx context.Context, req sdk.PrepareRequest) (sdk.Handle, error) {
	c, err := p.client(ctx)
	if err != nil {
		return sdk.Handle{}, err
	}
	h, err := c.PrepareCall(ctx, req)
	return h, p.m.callError(ctx, c, err)
}

// Stream runs a prepared request.
func (p *ProviderHandle) Stream(ctx context.Context, h sdk.Handle, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	c, err := p.client(ctx)
	if err != nil {
		return err
	}
	return p.m.callError(ctx, c, c.Stream(ctx, h, req, emit))
}

// Hook returns the named hook plugin. It implements sdk.Hook.
func (h *Host) Hook(name string) (*HookHandle, error) {
	m, err := h.get(name, sdk.PluginHook)
	if err != nil {
		return nil, err
	}
	return &HookHandle{m: m}, nil
}

// HookHandle is a lazily started, self-healing hook plugin.
type HookHandle struct{ m *managed }

var _ sdk.Hook = (*HookHandle)(nil)

// Phases implements sdk.Hook.
func (k *HookHandle) Phases(ctx context.Context) ([]string, error) {
	raw, err := k.m.client(ctx)
	if err != nil {
		return nil, err
	}
	phases, err := raw.(*sdk.HookClient).Phases(ctx)
	return phases, k.m.callError(ctx, raw, err)
}

// Handle implements sdk.Hook.
func (k *HookHandle) Handle(ctx context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error) {
	raw, err := k.m.client(ctx)
	if err != nil {
		return sdk.HookVerdict{}, err
	}
	v, err := raw.(*sdk.HookClient).Handle(ctx, ev)
	return v, k.m.callError(ctx, raw, err)
}
