package tools

import (
	"context"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// TestSourceResultNamesTheDeadline: whoever notices the deadline first (the
// context, the plugin echoing it, or the plugin host a hair before it fires),
// the result says which deadline stopped the call.
func TestSourceResultNamesTheDeadline(t *testing.T) {
	const want = "slow did not finish within its deadline of 1s and was stopped"
	atHand, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), -time.Second)
	defer cancel2()
	far, cancel3 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel3()
	host := &sdk.Error{Kind: sdk.KindTimeout, Message: `plugin "p" did not answer before the deadline`}
	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"host, deadline at hand", atHand, host, want},
		{"host, deadline passed", expired, host, want},
		{"plugin echoes its context", far, &sdk.Error{Kind: sdk.KindTimeout, Message: context.DeadlineExceeded.Error()}, want},
		{"the plugin's own timeout, deadline far", far, &sdk.Error{Kind: sdk.KindTimeout, Message: "upstream timed out"}, "upstream timed out"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := sourceResult(tt.ctx, "slow", sdk.Result{}, tt.err, time.Second)
			if res.Err == nil || res.Err.Kind != sdk.KindTimeout || res.Err.Message != tt.want {
				t.Errorf("error %+v, want timeout %q", res.Err, tt.want)
			}
		})
	}
}
