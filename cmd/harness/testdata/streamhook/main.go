// Command streamhook is an llm/stream hook plugin for the end-to-end
// tests. Before a request it vetoes with the content of the file
// streamhook.veto in its working directory when that file exists, and
// otherwise allows and adds {"guard": "streamhook"} as metadata; every
// event it sees is appended as a JSON line to streamhook.jsonl.
package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/harness-agent/harness/sdk"
)

type hook struct{}

func (hook) Phases(context.Context) ([]string, error) {
	return []string{sdk.PhaseLLMStream}, nil
}

func (hook) Handle(_ context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error) {
	line, err := json.Marshal(ev)
	if err != nil {
		return sdk.HookVerdict{}, err
	}
	f, err := os.OpenFile("streamhook.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return sdk.HookVerdict{}, err
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		return sdk.HookVerdict{}, err
	}
	if ev.Stage != sdk.StageBefore {
		return sdk.HookVerdict{}, nil
	}
	if reason, err := os.ReadFile("streamhook.veto"); err == nil {
		return sdk.HookVerdict{Decision: sdk.DecisionDeny, Reason: strings.TrimSpace(string(reason))}, nil
	}
	return sdk.HookVerdict{Metadata: map[string]string{"guard": "streamhook"}}, nil
}

func main() {
	sdk.ServeHook(hook{})
}
