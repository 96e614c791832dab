// Command crashhook is a hook plugin for the tool executor's tests. What it
// does depends on the tool of the event: "crash" kills the plugin, "hang"
// never answers, "deny" denies, "fail" returns an error, anything else is
// allowed.
package main

import (
	"context"
	"errors"

	"github.com/harness-agent/harness/sdk"
)

type hook struct{}

func (hook) Phases(context.Context) ([]string, error) {
	return []string{sdk.PhasePreExecute, sdk.PhaseApprove, sdk.PhasePostExecute, sdk.PhaseResult}, nil
}

func (hook) Handle(ctx context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error) {
	switch ev.Tool {
	case "crash":
		sdk.Logger().Error("crashhook: crashing on purpose", "phase", ev.Phase)
		go func() { panic("crashhook: boom") }()
		<-ctx.Done() // the panic ends the process first; never answers
		return sdk.HookVerdict{}, ctx.Err()
	case "hang":
		<-ctx.Done()
		return sdk.HookVerdict{}, ctx.Err()
	case "deny":
		return sdk.HookVerdict{Decision: sdk.DecisionDeny, Reason: "crashhook denies " + ev.Phase}, nil
	case "fail":
		return sdk.HookVerdict{}, errors.New("crashhook fails on purpose")
	}
	return sdk.HookVerdict{Decision: sdk.DecisionAllow, Reason: "crashhook allows"}, nil
}

func main() {
	sdk.ServeHook(hook{})
}
