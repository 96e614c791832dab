package deepseek_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/providerkit/providerkittest"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// startPlugin runs the standalone binary the way a host does.
func startPlugin(t *testing.T) *sdk.ProviderClient {
	t.Helper()
	return sdktest.StartProvider(t, pluginBinary(t))
}

// TestSubprocess replays fixtures through the real plugin process.
func TestSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the plugin binary")
	}
	t.Parallel()
	client := startPlugin(t)

	providerkittest.CheckHTTPSettingsSchema(t, client)
	providerkittest.CheckModels(t, client, func(m sdk.ModelInfo) bool {
		return m.Pricing != nil && m.ContextWindow > 0 && m.MaxOutput > 0 && m.SupportsTools
	}, "deepseek-chat", "deepseek-reasoner", "deepseek-v4-flash", "deepseek-v4-pro")

	for _, name := range []string{
		"vercel-deepseek-v4flash-reasoning-then-toolcall-cachehit.2026-08.chunks.jsonl",
		"vercel-deepseek-chat-text-length.2025-12.chunks.jsonl",
		"yven-dashscope-qwen-plus-keepalive-then-usage-only-chunk.sse",
		"coder-aibridge-openai-gpt41-error-event-mid-stream.sse",
	} {
		t.Run(name, func(t *testing.T) {
			srv := fakedeepseek.New(t, fakedeepseek.Fixture(t, fixture(t, name)))
			got := connect(t, client, srv, "deepseek-v4-flash", nil).stream(t, userRequest("hi"))
			checkFixture(t, fixtureWants[name], got)
		})
	}

	t.Run("401 never shows the key", func(t *testing.T) {
		srv := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{Text: "unreachable"}))
		srv.RequireKey("sk-another-key-entirely-000000000000")
		got := connect(t, client, srv, "deepseek-v4-flash", nil).stream(t, userRequest("hi"))
		wantError(t, got, sdk.KindAuth, "Authentication Fails")
		if strings.Contains(got.Err.Message, testKey[len(testKey)-4:]) || strings.Contains(got.Err.Message, testKey) {
			t.Errorf("the key leaks: %s", got.Err.Message)
		}
	})

	t.Run("stale handle after reconfiguring", func(t *testing.T) {
		srv := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{Text: "ok"}))
		p := connect(t, client, srv, "deepseek-v4-flash", nil)
		reconfig, _ := json.Marshal(map[string]any{"api_key": testKey, "base_url": srv.URL})
		providerkittest.CheckStaleHandle(t, rules, client, p.handle, reconfig, userRequest("hi"))
	})
}
