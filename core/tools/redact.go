package tools

import (
	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/sdk"
)

// Redacted replaces a secret in a tool's result.
const Redacted = "[redacted: an API key of the configuration]"

// redactor removes the configuration's secrets (provider API keys) from
// everything a tool returns, before the model, the store or a person sees
// it: a tool that reads a file or runs a command may come across them (a
// literal api_key in a configuration inside the workspace).
type redactor struct{ r *redact.Replacer }

func newRedactor(secrets []string) *redactor {
	r := redact.NewReplacer(secrets, Redacted)
	if r == nil {
		return nil
	}
	return &redactor{r: r}
}

func (r *redactor) text(s string) string {
	if r == nil {
		return s
	}
	return r.r.Replace(s)
}

// result returns res with every secret replaced, in its content, error and
// presentation.
func (r *redactor) result(res sdk.Result) sdk.Result {
	if r == nil {
		return res
	}
	res.Content = r.text(res.Content)
	if res.Err != nil {
		e := *res.Err
		e.Message = r.text(e.Message)
		res.Err = &e
	}
	switch p := res.Presentation.(type) {
	case sdk.TerminalView:
		p.Command, p.Output = r.text(p.Command), r.text(p.Output)
		res.Presentation = p
	case sdk.DiffView:
		p.Unified = r.text(p.Unified)
		res.Presentation = p
	case sdk.SearchView:
		hits := make([]sdk.SearchHit, len(p.Hits))
		for i, h := range p.Hits {
			h.Text = r.text(h.Text)
			hits[i] = h
		}
		p.Hits = hits
		res.Presentation = p
	case sdk.TextView:
		p.Text = r.text(p.Text)
		res.Presentation = p
	}
	return res
}
