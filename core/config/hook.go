package config

import (
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/sdk"
)

var hookSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "sha256"},
		{Name: "phases", Required: true},
		{Name: "timeout"},
	},
}

func (l *loader) decodeHook(it item) *Hook {
	h := &Hook{Name: it.name(), Timeout: 10 * time.Second, DeclRange: it.block.DefRange}
	a := l.attrs(it.src, l.content(it.block.Body, hookSchema).Attributes)
	h.Path = l.resolveFile(a, it.src, blockHook, h.Name)
	h.SHA256 = decodeSHA256(a)
	if phases, ranges, ok := a.strList("phases"); ok {
		if len(phases) == 0 {
			a.errorf(a.rangeOf("phases"), "Invalid hook phase",
				"phases must not be empty: subscribe to %s.", oneOf(sdk.HookPhases()))
		}
		for i, ph := range phases {
			switch {
			case !sdk.IsHookPhase(ph):
				a.errorf(ranges[i], "Invalid hook phase", "phase %q is unknown: use %s.", ph, oneOf(sdk.HookPhases()))
			case slices.Contains(h.Phases, ph):
				a.errorf(ranges[i], "Duplicate hook phase", "phase %q is listed twice.", ph)
			default:
				h.Phases = append(h.Phases, ph)
			}
		}
	}
	a.duration("timeout", &h.Timeout)
	return h
}
