package llm

import (
	"errors"

	"github.com/harness-agent/harness/sdk"
)

// Progress is what an attempt has consumed so far, asked about after every
// chunk while it streams: the server's usage figures where it has sent
// any, else estimates (the caller's prompt estimate, and the output's bytes
// at bytesPerToken).
type Progress struct {
	Binding   Binding
	Usage     sdk.Usage
	Cost      float64 // USD at the binding's pricing
	MaxOutput int64   // the output limit sent with the request (0: none)
	Estimated bool    // some of Usage is an estimate
}

// LimitCheck returns the name of the limit that Progress crosses, or "".
type LimitCheck func(p Progress) string

// LimitError stops an attempt whose stream crossed a limit. Its kind is
// budget_exceeded, which is never retried.
type LimitError struct {
	Limit    string
	Progress Progress
}

func (e *LimitError) Error() string { return e.sdkError().Error() }

// Unwrap makes sdk.KindOf and errors.As see a budget_exceeded *sdk.Error.
func (e *LimitError) Unwrap() error { return e.sdkError() }

func (e *LimitError) sdkError() *sdk.Error {
	u := e.Progress.Usage
	how := "the server's figures"
	if e.Progress.Estimated {
		how = "estimated"
	}
	return sdk.Errorf(sdk.KindBudgetExceeded, "the response was stopped while it streamed: it crossed %s (%d prompt + %d output tokens, $%.6f, %s)",
		e.Limit, u.PromptTokens, u.CompletionTokens, e.Progress.Cost, how)
}

// AsLimit returns the LimitError in err's chain.
func AsLimit(err error) (*LimitError, bool) {
	var le *LimitError
	ok := errors.As(err, &le)
	return le, ok
}

// bytesPerToken is the output estimate's ratio until the server reports
// usage: about right for English and code, low for CJK text.
const bytesPerToken = 4

// meter follows one attempt's output to estimate its usage.
type meter struct {
	call      *Call
	maxOutput int64
	outBytes  int64
}

func (m *meter) progress(reported sdk.Usage) Progress {
	u, estimated := reported, false
	if u.PromptTokens == 0 && m.call.Request.PromptTokensEst > 0 {
		u.PromptTokens, u.CacheMissTokens, estimated = m.call.Request.PromptTokensEst, m.call.Request.PromptTokensEst, true
	}
	if est := (m.outBytes + bytesPerToken - 1) / bytesPerToken; u.CompletionTokens < est && reported.CompletionTokens == 0 {
		u.CompletionTokens, estimated = est, true
	}
	b := m.call.Binding
	return Progress{Binding: b, Usage: u, Cost: Cost(u, b.Model.Pricing), MaxOutput: m.maxOutput, Estimated: estimated}
}

// check asks the request's LimitCheck about the attempt so far.
func (m *meter) check(reported sdk.Usage) error {
	if m.call.Request.Limit == nil {
		return nil
	}
	p := m.progress(reported)
	if limit := m.call.Request.Limit(p); limit != "" {
		return &LimitError{Limit: limit, Progress: p}
	}
	return nil
}
