package config

import (
	"encoding/hex"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

var pluginSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "sha256"},
		{Name: "approval"},
		{Name: "timeout"},
		{Name: "env"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "config"}},
}

func (l *loader) decodePlugin(it item) *Plugin {
	p := &Plugin{Name: it.name(), Approval: PolicyAsk, DeclRange: it.block.DefRange}
	c := l.content(it.block.Body, pluginSchema)
	a := l.attrs(it.src, c.Attributes)
	p.Path = l.resolveFile(a, it.src, blockPlugin, p.Name)
	p.SHA256 = decodeSHA256(a)
	a.enum("approval", &p.Approval, PolicyAllow, PolicyAsk, PolicyDeny)
	a.duration("timeout", &p.Timeout)
	if env, ok := a.strMap("env"); ok {
		p.Env = env
	}
	if b := singleBlock(c.Blocks.OfType("config"), &l.diags); b != nil {
		p.Config = b.Body
	}
	return p
}

// decodeSHA256 decodes a sha256 attribute: 64 hex digits, returned in lower case.
func decodeSHA256(a *attrs) string {
	var sum string
	if !a.str("sha256", &sum) {
		return ""
	}
	if !validSHA256(sum) {
		a.errorf(a.rangeOf("sha256"), "Invalid sha256",
			"sha256 must be 64 hexadecimal digits (the output of sha256sum); got %q.", sum)
		return ""
	}
	return strings.ToLower(sum)
}

func validSHA256(sum string) bool {
	b, err := hex.DecodeString(sum)
	return err == nil && len(b) == 32
}
