package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

var modelSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "provider", Required: true},
		{Name: "id"},
		{Name: "context_window"},
		{Name: "max_output"},
		{Name: "thinking"},
		{Name: "thinking_budget"},
		{Name: "replay_reasoning"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "pricing"}},
}

var pricingSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "input_cache_hit"},
		{Name: "input_cache_miss", Required: true},
		{Name: "input_cache_write"},
		{Name: "output", Required: true},
	},
}

func (l *loader) decodeModel(it item) *Model {
	m := &Model{Name: it.name(), ID: it.name(), ReplayReasoning: true, DeclRange: it.block.DefRange}
	c := l.content(it.block.Body, modelSchema)
	a := l.attrs(it.src, c.Attributes)
	if a.nonEmptyStr("provider", &m.Provider) {
		l.reference(blockProvider, m.Provider, a.rangeOf("provider"), fmt.Sprintf("model %q", m.Name))
	}
	a.nonEmptyStr("id", &m.ID)
	a.integer("context_window", &m.ContextWindow, 0)
	a.integer("max_output", &m.MaxOutput, 0)
	var thinking bool
	if a.boolean("thinking", &thinking) {
		m.Thinking = &thinking
	}
	a.integer("thinking_budget", &m.ThinkingBudget, 1)
	a.boolean("replay_reasoning", &m.ReplayReasoning)
	if b := singleBlock(c.Blocks.OfType("pricing"), &l.diags); b != nil {
		m.Pricing = l.decodePricing(it.src, b)
	}
	return m
}

// decodePricing always returns a Pricing, so that a typo in a price is not also reported
// as a model without pricing.
func (l *loader) decodePricing(src *source, b *hcl.Block) *Pricing {
	p := &Pricing{}
	a := l.attrs(src, l.content(b.Body, pricingSchema).Attributes)
	a.number("input_cache_miss", &p.InputCacheMiss, 0)
	p.InputCacheHit = p.InputCacheMiss
	a.number("input_cache_hit", &p.InputCacheHit, 0)
	p.InputCacheWrite = p.InputCacheMiss
	a.number("input_cache_write", &p.InputCacheWrite, 0)
	a.number("output", &p.Output, 0)
	return p
}
