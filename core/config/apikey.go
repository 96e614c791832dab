package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// envCallName is NAME when expr is env("NAME"), "" otherwise.
func envCallName(expr hcl.Expression) string {
	call, ok := expr.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != "env" || len(call.Args) != 1 {
		return ""
	}
	lit, ok := call.Args[0].(*hclsyntax.TemplateExpr)
	if !ok || !lit.IsStringLiteral() {
		return ""
	}
	v, diags := lit.Value(nil)
	if diags.HasErrors() || v.IsNull() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}

// CheckAPIKeys reports every provider an agent uses whose api_key is
// env("NAME") of a variable that is unset or empty: without it the first
// request would fail as a bad key. `validate` and `run` report it before
// any request.
func CheckAPIKeys(cfg *Config) hcl.Diagnostics {
	used := map[string]bool{}
	for _, a := range cfg.Agents {
		for _, m := range a.Models {
			if mod := cfg.Model(m); mod != nil {
				used[mod.Provider] = true
			}
		}
	}
	var diags hcl.Diagnostics
	for _, p := range cfg.Providers {
		if !used[p.Name] || p.APIKeyEnv == "" || p.APIKey != "" {
			continue
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  p.APIKeyEnv + " is not set",
			Detail: fmt.Sprintf("provider %q reads its API key from env(%q), which is unset or empty. "+
				"Export it (export %s=…) and run again.", p.Name, p.APIKeyEnv, p.APIKeyEnv),
			Subject: p.APIKeyRange.Ptr(),
		})
	}
	return diags
}
