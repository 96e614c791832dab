package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Format returns the canonical formatting of an HCL source: indentation, alignment of
// equals signs, spacing. Comments and the order of everything are left untouched.
// It formats whatever tokens it is given; use FormatFile for sources that may not parse.
func Format(src []byte) []byte {
	return hclwrite.Format(src)
}

// FormatFile formats src after checking that it parses, so that `harness fmt` never
// rewrites a file it would mangle; filename appears in the diagnostics.
func FormatFile(src []byte, filename string) ([]byte, hcl.Diagnostics) {
	if _, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	return Format(src), nil
}
