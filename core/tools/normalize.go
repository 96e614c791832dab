package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
)

// sourceResult turns what a source returned into a result whose error, if
// any, is an *sdk.Error; a source stopped by its deadline is a timeout.
func sourceResult(ctx context.Context, tool string, res sdk.Result, err error, timeout time.Duration) sdk.Result {
	if err != nil && res.Err == nil {
		res.Err = sdk.AsError(err)
		if isContextErr(err) {
			// The source only echoed its context: say what that means.
			res.Err = &sdk.Error{Kind: sdk.KindCanceled, Message: tool + " was canceled"}
		}
	}
	// A plugin's context ends at the same deadline, so it may answer a hair
	// before ours fires: a bare "context deadline exceeded" is ours too.
	// The plugin host, too, reports a call whose deadline is all but
	// reached as a timeout before the context itself fires.
	echoed := res.Err != nil && res.Err.Kind == sdk.KindTimeout &&
		(res.Err.Message == context.DeadlineExceeded.Error() || pluginhost.DeadlineReached(ctx))
	if res.Err != nil && (echoed || errors.Is(ctx.Err(), context.DeadlineExceeded) &&
		(res.Err.Kind == sdk.KindCanceled || res.Err.Kind == sdk.KindInternal || res.Err.Kind == sdk.KindTimeout)) {
		res.Err = &sdk.Error{Kind: sdk.KindTimeout, Message: fmt.Sprintf("%s did not finish within its deadline of %s and was stopped", tool, timeout)}
	}
	return res
}

// normalize is the tools/normalize phase: every error of a known kind and
// explained in the content, the output within the safety net's cap.
func normalize(tool string, res sdk.Result, maxBytes int) sdk.Result {
	if e := res.Err; e != nil {
		out := *e
		if !knownKinds[out.Kind] {
			out.Message = fmt.Sprintf("%s (error kind %q is unknown)", out.Message, out.Kind)
			out.Kind = sdk.KindInternal
		}
		if out.Message == "" {
			out.Message = tool + " failed"
		}
		res.Err = &out
		if res.Content == "" {
			res.Content = res.Err.Error()
		}
	}
	res.Content = capOutput(tool, res.Content, maxBytes)
	res.Presentation = capPresentation(tool, res.Presentation, maxBytes)
	return res
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

var knownKinds = map[sdk.ErrorKind]bool{
	sdk.KindAuth: true, sdk.KindBilling: true, sdk.KindInvalidRequest: true, sdk.KindRateLimited: true,
	sdk.KindProviderUnavailable: true, sdk.KindTimeout: true, sdk.KindTruncated: true,
	sdk.KindStreamViolation: true, sdk.KindDenied: true, sdk.KindPendingApproval: true,
	sdk.KindInvalidArgs: true, sdk.KindToolNotFound: true, sdk.KindProcessExit: true,
	sdk.KindPathEscape: true, sdk.KindRepeatedCall: true, sdk.KindBudgetExceeded: true,
	sdk.KindCanceled: true, sdk.KindInternal: true,
}
