package runner

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/core/catalog"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// TestEventsNeverCarrySecrets: what the recorder stores of an event has
// every secret of at least redact.MinLen bytes replaced, also where JSON
// escapes it, and is the event itself when there is nothing to redact.
func TestEventsNeverCarrySecrets(t *testing.T) {
	t.Parallel()
	const key = "sk-0123456789abcdef"
	tests := []struct {
		name     string
		secrets  []string
		text     string
		want     string // in the stored text
		wantGone string // not in the stored JSON
	}{
		{"a key", []string{key}, "the key is " + key, "the key is [redacted]", key},
		{"twice", []string{key}, key + " " + key, "[redacted] [redacted]", key},
		{"two keys", []string{key, "another-secret"}, "another-secret and " + key, "[redacted] and [redacted]", "another-secret"},
		{"escaped by JSON", []string{`pa"ss<wo>rd`}, `say pa"ss<wo>rd`, "say [redacted]", `ss\u003cwo`},
		{"short placeholders stay", []string{"ollama"}, "ollama serves it", "ollama serves it", ""},
		{"no secrets", nil, "plain " + key, "plain " + key, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, err := session.Open(filepath.Join(t.TempDir(), "harness.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			info, err := s.CreateSession(ctx, session.SessionInfo{Agent: "a"})
			if err != nil {
				t.Fatal(err)
			}
			secrets := tt.secrets
			rec := &tools.StoreRecorder{Store: s, Session: info.ID, Redact: (&eventRedactor{secrets: func() []string { return secrets }}).redact}
			if err := rec.Record(ctx, event.AgentResponse{Text: tt.text}); err != nil {
				t.Fatal(err)
			}
			if err := rec.RecordAll(ctx, event.AssistantMessage{Content: tt.text}); err != nil {
				t.Fatal(err)
			}
			stored, err := s.Events(ctx, info.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range stored {
				if tt.wantGone != "" && strings.Contains(string(ev.Data), tt.wantGone) {
					t.Errorf("%s stored %s: the secret is still there", ev.Type, ev.Data)
				}
				d, err := event.Decode(ev)
				if err != nil {
					t.Fatal(err)
				}
				var got string
				switch d := d.(type) {
				case event.AgentResponse:
					got = d.Text
				case event.AssistantMessage:
					got = d.Content
				}
				if got != tt.want {
					t.Errorf("%s stored %q, want %q", ev.Type, got, tt.want)
				}
			}
		})
	}
	if d := (event.AgentResponse{Text: "x"}); func() bool {
		stored, same := redactEvent(d, redact.NewJSONReplacer([]string{"ollama"}, redact.Marker))
		return stored != event.Data(d) || !same
	}() {
		t.Error("an event with nothing to redact is not stored as itself")
	}
	secret := "sk-0123456789abcdef"
	rep := redact.NewJSONReplacer([]string{secret}, redact.Marker)
	if _, same := redactEvent(event.AgentResponse{Text: "the key is " + secret}, rep); same {
		t.Error("an event whose secret was redacted is said to be stored as it is")
	}
	if _, same := redactEvent(event.AgentResponse{Text: "no key here"}, rep); !same {
		t.Error("an event with no secret in it is said to be changed by its redaction")
	}
}

// TestSecretsAreTheProvidersKeys: the values no result or event may carry
// are every provider block's api_key, the secret settings of built-ins
// and those of third-party providers once configured; an empty key is
// none.
func TestSecretsAreTheProvidersKeys(t *testing.T) {
	t.Parallel()
	s := &redact.Secrets{}
	addConfigSecrets(s, &config.Config{Providers: []*config.Provider{
		{Name: "a", APIKey: "key-of-a-0123"},
		{Name: "local"},
		{Name: "b", APIKey: "key-of-b-4567", Secrets: []string{"b-setting-secret"}},
	}})
	s.Add("token-from-settings") // a third-party provider, configured
	r := &Runner{opts: Options{Secrets: s}}
	want := []string{"key-of-a-0123", "key-of-b-4567", "b-setting-secret", "token-from-settings"}
	if got := r.secrets(); !slices.Equal(got, want) {
		t.Errorf("secrets() = %q, want %q", got, want)
	}
}

func TestProgressStoreBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		set  int64
		want int64
	}{
		{0, -1}, // terminal_store_bytes = 0 keeps no progress
		{1, 1},
		{config.DefaultTerminalStoreBytes, config.DefaultTerminalStoreBytes},
	}
	for _, tt := range tests {
		if got := progressStoreBytes(config.Permissions{TerminalStoreBytes: tt.set}); got != tt.want {
			t.Errorf("progressStoreBytes(%d) = %d, want %d", tt.set, got, tt.want)
		}
	}
}

type noSource struct{}

func (noSource) Execute(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
	return sdk.Result{}, nil
}

// TestReadOnlyIsWhatNeitherWritesNorExecutes: the loop runs a turn's calls
// at once only when every one is read-only by its plugin's flags.
func TestReadOnlyIsWhatNeitherWritesNorExecutes(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	tests := []struct {
		name string
		caps sdk.Capabilities
		want bool
	}{
		{"reads", sdk.Capabilities{Reads: true}, true},
		{"flags_nothing", sdk.Capabilities{}, true},
		{"network", sdk.Capabilities{Reads: true, Network: true}, true},
		{"writes", sdk.Capabilities{Reads: true, Writes: true}, false},
		{"executes", sdk.Capabilities{Executes: true}, false},
	}
	for _, tt := range tests {
		if err := reg.Add(tools.Tool{Spec: sdk.ToolSpec{Name: tt.name, Capabilities: tt.caps}, Origin: tools.OriginPlugin, Source: noSource{}}); err != nil {
			t.Fatal(err)
		}
	}
	r := &Runner{registry: reg}
	for _, tt := range tests {
		if got := r.readOnly(tt.name); got != tt.want {
			t.Errorf("readOnly(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if r.readOnly("unregistered") {
		t.Error("an unregistered tool counts as read-only")
	}
}

func newHost(t *testing.T, specs ...pluginhost.Spec) *pluginhost.Host {
	t.Helper()
	host, err := pluginhost.New(pluginhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	for _, s := range specs {
		if err := host.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	return host
}

// TestStreamHooksAreTheLLMStreamSubscribers: only hook blocks that name
// llm/stream see model requests, in declaration order, each with its
// block's timeout; nothing starts to wire them.
func TestStreamHooksAreTheLLMStreamSubscribers(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Hooks: []*config.Hook{
		{Name: "approver", Phases: []string{sdk.PhaseApprove}},
		{Name: "meter", Phases: []string{sdk.PhaseLLMStream}, Timeout: time.Second},
		{Name: "audit", Phases: []string{sdk.PhaseResult, sdk.PhaseLLMStream}, Timeout: 2 * time.Second},
	}}
	var specs []pluginhost.Spec
	for _, h := range cfg.Hooks {
		specs = append(specs, pluginhost.Spec{Name: h.Name, Kind: sdk.PluginHook, Path: "/nonexistent/" + h.Name})
	}
	host := newHost(t, specs...)
	hooks, err := streamHooks(cfg, host)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hooks {
		got = append(got, h.Name+"/"+h.Timeout.String())
	}
	if want := []string{"meter/1s", "audit/2s"}; !slices.Equal(got, want) {
		t.Errorf("stream hooks %q, want %q", got, want)
	}
	for _, s := range specs {
		if host.PID(s.Name) != 0 {
			t.Errorf("hook %q started while wiring", s.Name)
		}
	}
}

// TestCompactorSettings: the loop compacts only with a known context
// window, under the agent's context settings, with the summarizer agent's
// models (context.summarizer, else "context-manager", else the agent's own).
func TestCompactorSettings(t *testing.T) {
	t.Parallel()
	decls := []llm.ModelDecl{
		{Name: "big", Provider: "p", ContextWindow: 100000},
		{Name: "small", Provider: "p", ContextWindow: 8000},
		{Name: "unknown", Provider: "p"},
	}
	models, err := llm.NewRegistry(decls, func(context.Context, string) ([]sdk.ModelInfo, error) {
		return []sdk.ModelInfo{{ID: "big"}, {ID: "small"}, {ID: "unknown"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	settings := config.ContextSettings{Threshold: 0.6, KeepRecent: 3, SummaryTimeout: 5 * time.Second}
	tests := []struct {
		name       string
		agents     []*config.Agent // the first runs
		window     int64           // 0: no compactor
		summarizer string          // the model of the summary
	}{
		{"own models", []*config.Agent{{Name: "a", Models: []string{"big"}, Context: settings}}, 100000, "big"},
		{"context-manager", []*config.Agent{{Name: "a", Models: []string{"big"}, Context: settings},
			{Name: config.DefaultSummarizerAgent, Models: []string{"small"}}}, 100000, "small"},
		{"named summarizer", []*config.Agent{{Name: "a", Models: []string{"big"}, Context: config.ContextSettings{Summarizer: "s", Threshold: 0.6, KeepRecent: 3, SummaryTimeout: 5 * time.Second}},
			{Name: "s", Models: []string{"small"}}, {Name: config.DefaultSummarizerAgent, Models: []string{"big"}}}, 100000, "small"},
		{"window of the first model", []*config.Agent{{Name: "a", Models: []string{"small", "big"}, Context: settings}}, 8000, "small"},
		{"unknown window", []*config.Agent{{Name: "a", Models: []string{"unknown"}, Context: settings}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			ag := tt.agents[0]
			bindings, err := models.ResolveAll(ctx, ag.Models)
			if err != nil {
				t.Fatal(err)
			}
			r := &Runner{cfg: &config.Config{Agents: tt.agents}, agent: ag, models: models, bindings: bindings}
			c := r.compactor(ctx)
			if tt.window == 0 {
				if c != nil {
					t.Fatalf("a compactor for a model without a context window: %+v", c)
				}
				return
			}
			if c == nil {
				t.Fatal("no compactor")
			}
			if c.ContextWindow != tt.window || c.Threshold != 0.6 || c.KeepRecent != 3 || c.Timeout != 5*time.Second {
				t.Errorf("compactor window %d, threshold %v, keep %d, timeout %s", c.ContextWindow, c.Threshold, c.KeepRecent, c.Timeout)
			}
			if c.Model == nil || len(c.Bindings) == 0 || c.Bindings[0].Name != tt.summarizer {
				t.Errorf("summarizer bindings %+v, want model %q", c.Bindings, tt.summarizer)
			}
		})
	}
}

// TestCheckCoversWhatTheRunUses: before a session exists, a run refuses
// the plugins it needs that failed to start and tool names nothing
// offers; a plugin it does not need is left to validate.
func TestCheckCoversWhatTheRunUses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tools []string
		start []string // plugins asked to describe themselves
		want  []string // diagnostic summaries
	}{
		{"a broken plugin nobody needs", []string{config.EmitArtifactTool}, nil, nil},
		{"a needed plugin that failed", []string{"wordcount"}, []string{"broken"}, []string{"Plugin unusable"}},
		{"an unknown tool", []string{"nope"}, nil, []string{"Unknown tool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ag := &config.Agent{Name: "a", Tools: tt.tools, ToolRanges: make([]hcl.Range, len(tt.tools))}
			cfg := &config.Config{Dir: t.TempDir(), Agents: []*config.Agent{ag},
				Plugins: []*config.Plugin{{Name: "broken", Path: filepath.Join(t.TempDir(), "missing")}}}
			host := newHost(t)
			cat, diags := catalog.New(cfg, host, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if len(tt.start) > 0 {
				_ = cat.Describe(context.Background(), tt.start...)
			}
			r := &Runner{cfg: cfg, agent: ag, catalog: cat}
			var got []string
			for _, d := range r.check() {
				if d.Severity == hcl.DiagError {
					got = append(got, d.Summary)
				}
			}
			if !slices.Equal(got, tt.want) {
				b, _ := json.Marshal(r.check())
				t.Errorf("check() = %q, want %q\n%s", got, tt.want, b)
			}
		})
	}
}

// The redactor reuses its replacer while the secrets stay the same and
// redacts a secret added during the run (a key a plugin reported) from the
// next event on.
func TestEventRedactorFollowsTheSecrets(t *testing.T) {
	t.Parallel()
	secrets := &redact.Secrets{}
	secrets.Add("sk-first-0123456789")
	e := &eventRedactor{secrets: secrets.Values}
	stored := func(text string) string {
		v, _ := e.redact(event.AgentResponse{Text: text})
		switch v := v.(type) {
		case session.Encoded:
			return string(v)
		case event.Data:
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		default:
			t.Fatalf("redact returned %T", v)
			return ""
		}
	}
	if got := stored("a sk-first-0123456789 b"); strings.Contains(got, "sk-first") || !strings.Contains(got, redact.Marker) {
		t.Errorf("first secret stored as %s", got)
	}
	rep := e.rep
	if got := stored("sk-second-0123456789"); !strings.Contains(got, "sk-second") {
		t.Errorf("a value that is not a secret yet was redacted: %s", got)
	}
	if e.rep != rep {
		t.Error("the replacer was built again for the same secrets")
	}
	secrets.Add("sk-second-0123456789")
	if got := stored("sk-first-0123456789 sk-second-0123456789"); strings.Contains(got, "sk-") {
		t.Errorf("after the second secret was added, stored %s", got)
	}
}

func BenchmarkRedactEvent(b *testing.B) {
	secrets := &redact.Secrets{}
	secrets.Add("sk-bench-0123456789abcdef")
	e := &eventRedactor{secrets: secrets.Values}
	d := event.AssistantMessage{Content: "The notes list two open TODOs: the parser and the docs."}
	b.ReportAllocs()
	for range b.N {
		_, _ = e.redact(d)
	}
}
