package config

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/harness-agent/harness/sdk"
)

var agentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "model", Required: true},
		{Name: "system"},
		{Name: "persona"},
		{Name: "tools"},
		{Name: "max_turns"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "context"}, {Type: "budget"}, {Type: "permissions"}},
}

var contextSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "threshold"}, {Name: "keep_recent"}, {Name: "summarizer"}, {Name: "summary_timeout"}},
}

var budgetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "max_tokens"}, {Name: "max_usd"}},
}

var permissionsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "write"},
		{Name: "terminal"},
		{Name: "allow_commands"},
		{Name: "deny_commands"},
		{Name: "unattended"},
		{Name: "terminal_timeout"},
		{Name: "terminal_max_timeout"},
		{Name: "sandbox"},
		{Name: "network"},
		{Name: "terminal_store_bytes"},
		{Name: "approval_timeout"},
	},
}

func (l *loader) decodeAgent(it item) *Agent {
	ag := &Agent{
		Name:       it.name(),
		MaxTurns:   50,
		Context:    ContextSettings{Threshold: 0.8, KeepRecent: 6},
		DeclRange:  it.block.DefRange,
		ToolsRange: it.block.DefRange,
		Permissions: Permissions{
			Terminal:           PolicyAsk,
			Unattended:         UnattendedDeny,
			TerminalTimeout:    120 * time.Second,
			TerminalMaxTimeout: 600 * time.Second,
			Sandbox:            SandboxWorkspaceWrite,
			TerminalStoreBytes: DefaultTerminalStoreBytes,
		},
	}
	from := fmt.Sprintf("agent %q", ag.Name)
	c := l.content(it.block.Body, agentSchema)
	a := l.attrs(it.src, c.Attributes)

	if models, ranges, ok := l.agentModels(a); ok {
		for i, m := range models {
			l.reference(blockModel, m, ranges[i], from)
		}
		ag.Models = models
	}
	a.str("system", &ag.System)
	a.str("persona", &ag.Persona)
	if tools, ranges, ok := a.strList("tools"); ok {
		ag.ToolsRange = a.rangeOf("tools")
		ag.Tools, ag.ToolRanges = l.checkToolNames(tools, ranges)
	}
	a.integerInt("max_turns", &ag.MaxTurns, 1)

	if b := singleBlock(c.Blocks.OfType("context"), &l.diags); b != nil {
		l.decodeContext(it.src, b, &ag.Context, from)
	}
	if b := singleBlock(c.Blocks.OfType("budget"), &l.diags); b != nil {
		l.decodeBudget(it.src, b, ag)
	}
	if b := singleBlock(c.Blocks.OfType("permissions"), &l.diags); b != nil {
		l.decodePermissions(it.src, b, &ag.Permissions)
	}
	return ag
}

// agentModels decodes model: one model name, or a list of them tried in order.
func (l *loader) agentModels(a *attrs) ([]string, []hcl.Range, bool) {
	v, ok := a.eval("model")
	if !ok {
		return nil, nil, false
	}
	var models []string
	var ranges []hcl.Range
	if v.Type() == cty.String {
		models, ranges = []string{v.AsString()}, []hcl.Range{a.rangeOf("model")}
	} else {
		ty := v.Type()
		if !ty.IsTupleType() && !ty.IsListType() && !ty.IsSetType() {
			a.errorf(a.rangeOf("model"), "Incorrect attribute value type",
				"model must be a model name or a list of model names; got %s.", ty.FriendlyName())
			return nil, nil, false
		}
		if models, ranges, ok = a.strListValue("model", v); !ok {
			return nil, nil, false
		}
	}
	if len(models) == 0 {
		a.errorf(a.rangeOf("model"), "Empty value", "model must name at least one model.")
		return nil, nil, false
	}
	return models, ranges, true
}

// checkToolNames reports names no provider accepts and drops repeated ones.
func (l *loader) checkToolNames(tools []string, ranges []hcl.Range) ([]string, []hcl.Range) {
	var names []string
	var rngs []hcl.Range
	for i, t := range tools {
		switch {
		case !validToolEntry(t):
			l.errorf(ranges[i], "Invalid tool name",
				"%q is not a tool name: tool names have %s "+
					"(%q selects every tool of mcp \"NAME\").", t, sdk.ToolNameRule, MCPWildcard("NAME"))
		case slices.Contains(names, t):
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Duplicate tool",
				Detail:   fmt.Sprintf("%q is already in the list.", t),
				Subject:  ranges[i].Ptr(),
			})
		default:
			names = append(names, t)
			rngs = append(rngs, ranges[i])
		}
	}
	return names, rngs
}

func (l *loader) decodeContext(src *source, b *hcl.Block, cs *ContextSettings, from string) {
	a := l.attrs(src, l.content(b.Body, contextSchema).Attributes)
	var threshold float64
	if a.number("threshold", &threshold, math.Inf(-1)) {
		if threshold <= 0 || threshold > 1 {
			a.errorf(a.rangeOf("threshold"), "Threshold out of range",
				"threshold is a fraction of the context window, in (0,1]; got %g.", threshold)
		} else {
			cs.Threshold = threshold
		}
	}
	a.integerInt("keep_recent", &cs.KeepRecent, 0)
	a.duration("summary_timeout", &cs.SummaryTimeout)
	if a.nonEmptyStr("summarizer", &cs.Summarizer) {
		l.reference(blockAgent, cs.Summarizer, a.rangeOf("summarizer"), from+" context.summarizer")
	}
}

func (l *loader) decodeBudget(src *source, b *hcl.Block, ag *Agent) {
	a := l.attrs(src, l.content(b.Body, budgetSchema).Attributes)
	a.integer("max_tokens", &ag.Budget.MaxTokens, 0)
	if !a.number("max_usd", &ag.Budget.MaxUSD, 0) || ag.Budget.MaxUSD == 0 {
		return
	}
	var unpriced []string
	for _, name := range ag.Models {
		if m := l.cfg.Model(name); m != nil && m.Pricing == nil {
			unpriced = append(unpriced, fmt.Sprintf("%q", name))
		}
	}
	if len(unpriced) > 0 {
		a.errorf(a.rangeOf("max_usd"), "Budget without pricing",
			"agent %q has a max_usd budget, but model %s has no pricing block, so its cost is unknown. "+
				"Add pricing { input_cache_miss = …, output = … } (USD per 1M tokens) to the model, "+
				"or limit the agent with max_tokens instead.", ag.Name, strings.Join(unpriced, ", "))
	}
}

func (l *loader) decodePermissions(src *source, b *hcl.Block, p *Permissions) {
	a := l.attrs(src, l.content(b.Body, permissionsSchema).Attributes)
	if globs, ranges, ok := a.strList("write"); ok {
		for i, g := range globs {
			if !validWriteGlob(g) {
				a.errorf(ranges[i], "Invalid write glob",
					"%q is not a workspace glob: write a pattern relative to the workspace, "+
						"with / as separator and no \"..\", like \"src/**\" or \"docs/*.md\".", g)
				continue
			}
			p.Write = append(p.Write, g)
		}
	}
	a.enum("terminal", &p.Terminal, PolicyAllow, PolicyAsk, PolicyDeny)
	p.AllowCommands = commandPatterns(a, "allow_commands")
	p.DenyCommands = commandPatterns(a, "deny_commands")
	a.enum("unattended", &p.Unattended, UnattendedDeny, UnattendedDefer)
	timeoutSet := a.duration("terminal_timeout", &p.TerminalTimeout)
	maxSet := a.duration("terminal_max_timeout", &p.TerminalMaxTimeout)
	if (timeoutSet || maxSet) && p.TerminalTimeout > p.TerminalMaxTimeout {
		name := "terminal_timeout"
		if !timeoutSet {
			name = "terminal_max_timeout"
		}
		a.errorf(a.rangeOf(name), "Invalid duration",
			"terminal_timeout (%s) must not exceed terminal_max_timeout (%s).", p.TerminalTimeout, p.TerminalMaxTimeout)
	}
	a.enum("sandbox", &p.Sandbox, SandboxOff, SandboxWorkspaceWrite)
	a.boolean("network", &p.Network)
	a.integer("terminal_store_bytes", &p.TerminalStoreBytes, 0)
	a.duration("approval_timeout", &p.ApprovalTimeout)
}

func validWriteGlob(g string) bool {
	if g == "" || path.IsAbs(g) || !doublestar.ValidatePattern(g) {
		return false
	}
	return !slices.Contains(strings.Split(g, "/"), "..")
}

func commandPatterns(a *attrs, name string) []string {
	patterns, ranges, ok := a.strList(name)
	if !ok {
		return nil
	}
	var out []string
	for i, p := range patterns {
		if strings.TrimSpace(p) == "" {
			a.errorf(ranges[i], "Empty value", "%s: a command pattern must not be empty.", name)
			continue
		}
		out = append(out, p)
	}
	return out
}
