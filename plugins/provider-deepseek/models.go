package deepseek

import (
	"strings"

	"github.com/harness-agent/harness/sdk"
)

// Built-in model metadata, from DeepSeek's "Models & Pricing" page as
// published in November 2026. HCL model attributes override every value in
// the core. Prices are USD per 1M tokens at the PEAK rate: DeepSeek bills
// half of it off-peak (outside 01:00–04:00 and 06:00–10:00 UTC on
// weekdays), and a budget computed at the peak rate stops a run early
// rather than late. Sizes are the documented "1M" context and "384K"
// maximum output, rounded down to decimal thousands.
//
// deepseek-flash is the current name of the Flash model; deepseek-v4-flash
// is a legacy name DeepSeek still accepts and bills as Flash.
// deepseek-chat and deepseek-reasoner were the non-thinking and thinking
// aliases of deepseek-v4-flash until DeepSeek retired them (2026-07-24):
// they are listed for OpenAI-compatible hosts that still serve them, with
// their thinking mode fixed by the name.
var builtinModels = []sdk.ModelInfo{
	flash("deepseek-flash", true),
	flash("deepseek-v4-flash", true),
	{
		ID:                "deepseek-v4-pro",
		ContextWindow:     1_000_000,
		MaxOutput:         384_000,
		Pricing:           &sdk.Pricing{InputCacheHit: 0.044, InputCacheMiss: 1.32, Output: 3.96},
		SupportsTools:     true,
		SupportsReasoning: true,
		SupportsCaching:   true,
	},
	flash("deepseek-chat", false),
	flash("deepseek-reasoner", true),
}

func flash(id string, reasoning bool) sdk.ModelInfo {
	return sdk.ModelInfo{
		ID:                id,
		ContextWindow:     1_000_000,
		MaxOutput:         384_000,
		Pricing:           &sdk.Pricing{InputCacheHit: 0.006, InputCacheMiss: 0.30, Output: 1.20},
		SupportsTools:     true,
		SupportsReasoning: reasoning,
		SupportsCaching:   true,
	}
}

// thinkingMode says how a request selects reasoning for a model id.
type thinkingMode int

const (
	// thinkingToggle: the model has both modes; the request says which
	// with {"thinking":{"type":"enabled"|"disabled"}}.
	thinkingToggle thinkingMode = iota
	// thinkingFixedOff / thinkingFixedOn: the model name fixes the mode
	// (deepseek-chat / deepseek-reasoner); no thinking field is sent.
	thinkingFixedOff
	thinkingFixedOn
	// thinkingForeign: not a DeepSeek model id (another OpenAI-compatible
	// server): the field is sent only to turn thinking on, so a server that
	// does not know it is never sent it unasked.
	thinkingForeign
)

func thinkingModeOf(modelID string) thinkingMode {
	switch {
	case modelID == "deepseek-chat":
		return thinkingFixedOff
	case modelID == "deepseek-reasoner":
		return thinkingFixedOn
	case strings.HasPrefix(modelID, "deepseek-"):
		return thinkingToggle
	default:
		return thinkingForeign
	}
}
