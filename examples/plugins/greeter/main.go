// Command harness-provider-greeter is a harness provider plugin. Until you write the
// real thing it answers every request with the canned reply of its
// settings, so it runs with no key and no network.
//
// Build it where agent.hcl expects it, lock its checksum and try it:
//
//	go mod tidy
//	go build -o bin/harness-provider-greeter .
//	harness plugins lock agent.hcl
//	harness validate agent.hcl
//	harness run agent.hcl "Say hello"
//
// To talk to a real API, replace Stream (sdk/sdktest/fakedeepseek is a
// fake server to test an OpenAI-compatible client against) and keep the
// settings schema in step with what Configure reads.
package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

func main() {
	sdk.ServeProvider(newProvider())
}

// settings are the attributes of the HCL provider block (besides
// "plugin"), decoded by the host against SettingsSchema.
type settings struct {
	Reply  string `json:"reply"`
	APIKey string `json:"api_key"`
}

type provider struct {
	mu  sync.Mutex
	cfg settings
}

func newProvider() *provider {
	return &provider{cfg: settings{Reply: "Hello from greeter."}}
}

// SettingsSchema is what `harness validate` checks provider blocks against.
func (p *provider) SettingsSchema(context.Context) (json.RawMessage, error) {
	return schema.Object(
		schema.String("reply", "The canned answer to every request.").Default("Hello from greeter."),
		schema.String("api_key", "The API key of the real service (unused by the canned reply).").Secret(),
	).JSON(), nil
}

func (p *provider) Configure(_ context.Context, raw json.RawMessage) error {
	cfg := settings{Reply: "Hello from greeter."}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "greeter settings: %v", err)
	}
	p.mu.Lock()
	p.cfg = cfg
	p.mu.Unlock()
	return nil
}

func (p *provider) Models(context.Context) ([]sdk.ModelInfo, error) {
	return []sdk.ModelInfo{{ID: "greeter-canned", ContextWindow: 128000, MaxOutput: 4096}}, nil
}

// Stream answers with the canned reply as one text block, in a few deltas
// the way a real stream arrives, then the finish chunk with usage.
func (p *provider) Stream(_ context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	p.mu.Lock()
	reply := p.cfg.Reply
	p.mu.Unlock()
	chunks := []sdk.StreamChunk{{Type: sdk.ChunkBlockStart, Index: 0, Kind: sdk.BlockText}}
	for _, word := range strings.SplitAfter(reply, " ") {
		chunks = append(chunks, sdk.StreamChunk{Type: sdk.ChunkBlockDelta, Index: 0, Text: word})
	}
	prompt := int64(0)
	for _, m := range req.Messages {
		prompt += int64(len(m.Content)/4 + 1)
	}
	chunks = append(chunks,
		sdk.StreamChunk{Type: sdk.ChunkBlockEnd, Index: 0},
		sdk.StreamChunk{Type: sdk.ChunkFinish, Reason: "stop", Usage: &sdk.Usage{
			PromptTokens: prompt, CacheMissTokens: prompt, CompletionTokens: int64(len(reply)/4 + 1)}})
	for _, c := range chunks {
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
