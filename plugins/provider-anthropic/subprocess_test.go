package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/providerkit/providerkittest"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

// startPlugin runs the standalone binary the way a host does.
func startPlugin(t *testing.T) *sdk.ProviderClient {
	t.Helper()
	return sdktest.StartProvider(t, pluginBinary(t))
}

// TestSubprocess replays every recorded stream through the real plugin
// process.
func TestSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the plugin binary")
	}
	t.Parallel()
	client := startPlugin(t)

	providerkittest.CheckHTTPSettingsSchema(t, client)
	providerkittest.CheckModels(t, client, func(m sdk.ModelInfo) bool {
		return m.Pricing != nil && m.Pricing.InputCacheWrite > m.Pricing.InputCacheMiss && m.ContextWindow > 0 && m.MaxOutput > 0 && m.SupportsTools
	}, "claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-sonnet-4-5-20250929")

	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			srv := fakeanthropic.New(t, fakeanthropic.Fixture(t, fixture(t, name)))
			checkFixture(t, name, connect(t, client, srv, sdk.PrepareRequest{}, nil).stream(t, userRequest("hi")))
		})
	}

	t.Run("401 never shows the key", func(t *testing.T) {
		srv := fakeanthropic.New(t, fakeanthropic.Scripted(fakeanthropic.Turn{Text: "unreachable"}))
		srv.RequireKey("sk-ant-api03-another-key-entirely-0000000000")
		got := connect(t, client, srv, sdk.PrepareRequest{}, nil).stream(t, userRequest("hi"))
		wantError(t, got, sdk.KindAuth, "invalid x-api-key")
		if strings.Contains(got.Err.Message, testKey[len(testKey)-8:]) {
			t.Errorf("the key leaks: %s", got.Err.Message)
		}
	})

	t.Run("stale handle after reconfiguring", func(t *testing.T) {
		srv := fakeanthropic.New(t, fakeanthropic.Scripted(fakeanthropic.Turn{Text: "ok"}))
		p := connect(t, client, srv, sdk.PrepareRequest{}, nil)
		reconfig, _ := json.Marshal(map[string]any{"api_key": testKey, "base_url": srv.URL})
		providerkittest.CheckStaleHandle(t, rules, client, p.handle, reconfig, userRequest("hi"))
	})
}
