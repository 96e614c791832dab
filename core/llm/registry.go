package llm

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/harness-agent/harness/sdk"
)

// ModelDecl is an HCL model block as the LLM layer needs it. Zero values mean
// "as the provider reports".
type ModelDecl struct {
	Name            string
	Provider        string
	ID              string // the provider's model id; default Name
	ContextWindow   int64
	MaxOutput       int64
	Thinking        *bool // nil: on when the provider reports reasoning support
	ThinkingBudget  int64 // 0: the provider's default
	ReplayReasoning bool
	Pricing         *sdk.Pricing // nil: the provider's pricing
}

// ModelLister returns the models a provider reports (core/runner asks the
// provider plugin's Models through core/pluginhost).
type ModelLister func(ctx context.Context, provider string) ([]sdk.ModelInfo, error)

// Registry resolves HCL model names to Bindings. It asks each provider for its
// models at most once (successful answers are kept) and only when a model of
// that provider is resolved, so unused provider plugins are never started.
// It is safe for concurrent use.
type Registry struct {
	decls map[string]ModelDecl
	list  ModelLister

	mu       sync.Mutex
	provided map[string][]sdk.ModelInfo
}

// NewRegistry checks the declarations (names unique and non-empty, a
// provider for each) and returns a registry over them.
func NewRegistry(decls []ModelDecl, list ModelLister) (*Registry, error) {
	r := &Registry{decls: make(map[string]ModelDecl, len(decls)), list: list, provided: map[string][]sdk.ModelInfo{}}
	var problems []string
	for _, d := range decls {
		switch {
		case d.Name == "":
			problems = append(problems, "a model declaration has no name")
		case d.Provider == "":
			problems = append(problems, fmt.Sprintf("model %q names no provider", d.Name))
		case r.decls[d.Name].Name != "":
			problems = append(problems, fmt.Sprintf("model %q is declared twice", d.Name))
		default:
			r.decls[d.Name] = d
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("llm: model registry: %s", strings.Join(problems, "; "))
	}
	return r, nil
}

// Names returns the declared model names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.decls))
	for n := range r.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Resolve returns the binding of the model called name.
func (r *Registry) Resolve(ctx context.Context, name string) (Binding, error) {
	d, ok := r.decls[name]
	if !ok {
		return Binding{}, fmt.Errorf("llm: model %q is not declared (declared: %s)", name, strings.Join(r.Names(), ", "))
	}
	provided, err := r.models(ctx, d.Provider)
	if err != nil {
		return Binding{}, fmt.Errorf("llm: model %q: listing the models of provider %q: %w", name, d.Provider, err)
	}
	return Merge(d, provided)
}

// ResolveAll resolves names in order: an agent's fallback chain.
func (r *Registry) ResolveAll(ctx context.Context, names []string) ([]Binding, error) {
	out := make([]Binding, 0, len(names))
	for _, n := range names {
		b, err := r.Resolve(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (r *Registry) models(ctx context.Context, provider string) ([]sdk.ModelInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.provided[provider]; ok {
		return m, nil
	}
	if r.list == nil {
		return nil, nil
	}
	m, err := r.list(ctx, provider)
	if err != nil {
		return nil, err
	}
	r.provided[provider] = m
	return m, nil
}

// Merge resolves one declaration against the models its provider reports:
// the provider's entry with the same id is the base and every non-zero HCL
// value overrides it. An id the provider does not report is accepted when the
// declaration gives its context window (capabilities are then assumed: tools
// yes, reasoning as the thinking setting says); otherwise it is an error that
// names the model and what the provider offers.
func Merge(d ModelDecl, provided []sdk.ModelInfo) (Binding, error) {
	id := d.ID
	if id == "" {
		id = d.Name
	}
	var info sdk.ModelInfo
	found := false
	for _, m := range provided {
		if m.ID == id {
			info, found = m, true
			break
		}
	}
	if !found {
		if d.ContextWindow <= 0 {
			ids := make([]string, len(provided))
			for i, m := range provided {
				ids[i] = m.ID
			}
			return Binding{}, fmt.Errorf("llm: model %q: provider %q does not report a model %q (it reports: %s); "+
				"set context_window in the model block to use it anyway", d.Name, d.Provider, id, strings.Join(ids, ", "))
		}
		info = sdk.ModelInfo{ID: id, SupportsTools: true, SupportsReasoning: d.Thinking != nil && *d.Thinking}
	}
	if d.ContextWindow > 0 {
		info.ContextWindow = d.ContextWindow
	}
	if d.MaxOutput > 0 {
		info.MaxOutput = d.MaxOutput
	}
	if d.Pricing != nil {
		p := *d.Pricing
		info.Pricing = &p
	} else if info.Pricing != nil {
		p := *info.Pricing // never share the provider's pointer
		info.Pricing = &p
	}
	thinking := info.SupportsReasoning
	if d.Thinking != nil {
		thinking = *d.Thinking
	}
	return Binding{Name: d.Name, Provider: d.Provider, Model: info, Thinking: thinking, ThinkingBudget: d.ThinkingBudget, ReplayReasoning: d.ReplayReasoning}, nil
}
