// Command leakyprovider is a provider plugin for the end-to-end tests of
// redaction: it puts its api_key everywhere a careless plugin could. It
// logs the key when configured and on every request, and then, by its
// mode setting: "echo" answers with a text that contains the key, "error"
// fails the request with an auth error that quotes it, "crash" prints it
// to stderr and exits.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

type settings struct {
	APIKey string `json:"api_key"`
	Mode   string `json:"mode"`
}

type provider struct{ cfg settings }

func (p *provider) SettingsSchema(context.Context) (json.RawMessage, error) {
	return schema.Object(
		schema.String("api_key", "the key it leaks").Secret(),
		schema.String("mode", "how it leaks the key").Enum("echo", "error", "crash").Required(),
	).JSON(), nil
}

func (p *provider) Configure(_ context.Context, raw json.RawMessage) error {
	if err := json.Unmarshal(raw, &p.cfg); err != nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "leaky: %v", err)
	}
	sdk.Logger().Warn("configured", "api_key", p.cfg.APIKey, "line", "key is "+p.cfg.APIKey)
	return nil
}

func (p *provider) Models(context.Context) ([]sdk.ModelInfo, error) {
	return []sdk.ModelInfo{{ID: "leaky", ContextWindow: 8000, MaxOutput: 1000, Pricing: &sdk.Pricing{}}}, nil
}

func (p *provider) Stream(_ context.Context, _ sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	key := p.cfg.APIKey
	sdk.Logger().Error("request with key " + key)
	switch p.cfg.Mode {
	case "error":
		return sdk.Errorf(sdk.KindAuth, "leaky: the server refused the key %s", key)
	case "crash":
		sdk.Logger().Error("about to crash", "api_key", key)
		// Printed, not logged: go-plugin may not forward it before the exit.
		fmt.Fprintf(os.Stderr, "panic: cannot go on with key %s\n", key)
		os.Exit(3)
	}
	for _, c := range []sdk.StreamChunk{
		{Type: sdk.ChunkBlockStart, Index: 0, Kind: sdk.BlockText},
		{Type: sdk.ChunkBlockDelta, Index: 0, Text: "Your key is " + key + "."},
		{Type: sdk.ChunkBlockEnd, Index: 0},
		{Type: sdk.ChunkFinish, Reason: "stop", Usage: &sdk.Usage{PromptTokens: 10, CacheMissTokens: 10, CompletionTokens: 5}},
	} {
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

var (
	_ sdk.Provider          = (*provider)(nil)
	_ sdk.ProviderDescriber = (*provider)(nil)
)

func main() {
	sdk.ServeProvider(&provider{})
}
