package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/sdk"
)

// Source runs the calls of one tool: a plugin handle, an MCP session or the
// core itself. It does its own job only; the executor owns the guards.
type Source interface {
	Execute(ctx context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error)
}

// Origin says where a tool comes from; approvals depend on it.
type Origin string

// Origins.
const (
	// OriginBuiltin is a tool compiled into harness: the core's own
	// emit_artifact and the tools of built-in plugins.
	OriginBuiltin Origin = "builtin"
	// OriginPlugin is a tool of a third-party plugin block.
	OriginPlugin Origin = "plugin"
	// OriginMCP is a tool of an mcp block, named SERVER__tool.
	OriginMCP Origin = "mcp"
)

// Tool is one entry of the registry.
type Tool struct {
	Spec   sdk.ToolSpec
	Origin Origin
	// Owner is the plugin or MCP server that offers the tool ("" for the core's own).
	Owner string
	// Approval is the approval attribute of the owner's plugin or mcp block
	// (allow, ask or deny); "" for built-in tools.
	Approval string
	// Timeout gives the deadline of one call from its canonical arguments;
	// nil means the executor's default.
	Timeout func(args json.RawMessage) time.Duration
	Source  Source
}

// entry is a registered tool with its compiled input schema. The bytes of
// Spec.InputSchema are the ones compiled: what the model is shown is what
// is validated.
type entry struct {
	Tool
	schema *jsonschema.Schema
}

// Registry holds every tool a run may know of, visible to an agent or not.
// It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*entry
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*entry{}}
}

// Add registers t, compiling its input schema once. A name that providers
// refuse, a name already taken or a schema that does not compile is an error.
func (r *Registry) Add(t Tool) error {
	name := t.Spec.Name
	if !sdk.ValidToolName(name) {
		return fmt.Errorf("tool %q: a tool name has %s", name, sdk.ToolNameRule)
	}
	if t.Source == nil {
		return fmt.Errorf("tool %q has no source to run it", name)
	}
	raw := bytes.TrimSpace(t.Spec.InputSchema)
	if len(raw) == 0 {
		raw = []byte(`{"type":"object"}`)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return fmt.Errorf("tool %q: input schema is not JSON: %w", name, err)
	}
	sch, err := compileSchema(name, compact.Bytes(), t.Origin == OriginBuiltin)
	if err != nil {
		return err
	}
	t.Spec.InputSchema = compact.Bytes()

	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.tools[name]; ok {
		return fmt.Errorf("tool %q is offered twice: by %s and by %s", name, prev.describeOwner(), t.describeOwner())
	}
	r.tools[name] = &entry{Tool: t, schema: sch}
	return nil
}

func (t Tool) describeOwner() string {
	switch {
	case t.Owner == "":
		return "the core"
	case t.Origin == OriginMCP:
		return fmt.Sprintf("mcp %q", t.Owner)
	default:
		return fmt.Sprintf("plugin %q", t.Owner)
	}
}

// Tool returns the registered tool called name.
func (r *Registry) Tool(name string) (Tool, bool) {
	e := r.entry(name)
	if e == nil {
		return Tool{}, false
	}
	return e.Tool, true
}

func (r *Registry) entry(name string) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tools[name]
}

// Names returns the names of every registered tool, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Visible expands a whitelist into the names of registered tools, in the
// whitelist's order: "NAME__*" stands for every tool of MCP server NAME
// (sorted by name), names not registered are left out, repeats count once.
func (r *Registry) Visible(whitelist []string) []string {
	all := r.Names()
	var out []string
	for _, w := range whitelist {
		for _, n := range all {
			if config.Selects(w, n) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Definitions returns what the model is shown of the whitelisted tools, in
// the order of Visible. Parameters are the very bytes calls are validated
// against.
func (r *Registry) Definitions(whitelist []string) []sdk.ToolDefinition {
	names := r.Visible(whitelist)
	defs := make([]sdk.ToolDefinition, 0, len(names))
	for _, n := range names {
		e := r.entry(n)
		defs = append(defs, sdk.ToolDefinition{Name: n, Description: e.Spec.Description, Parameters: e.Spec.InputSchema})
	}
	return defs
}
