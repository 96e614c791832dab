package providerkittest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

// Config is the provider block JSON the core would send to an HTTP
// provider: key, baseURL, 10 s deadlines, then overrides.
func Config(key, baseURL string, overrides map[string]any) []byte {
	cfg := map[string]any{"api_key": key, "base_url": baseURL, "timeout_first_token": "10s", "timeout_idle": "10s"}
	for k, v := range overrides {
		cfg[k] = v
	}
	b, _ := json.Marshal(cfg)
	return b
}

// CheckHTTPSettingsSchema checks that the plugin owns the schema of its
// settings (sdk.ProviderDescriber): the HTTP settings, api_key a secret.
func CheckHTTPSettingsSchema(t testing.TB, client *sdk.ProviderClient) {
	t.Helper()
	if schema, err := client.SettingsSchema(context.Background()); err != nil ||
		!strings.Contains(string(schema), `"api_key":{"description"`) || !strings.Contains(string(schema), `"writeOnly":true`) ||
		!strings.Contains(string(schema), `"max_event_bytes"`) {
		t.Errorf("settings schema %s, %v: want the HTTP settings with a secret api_key", schema, err)
	}
}

// CheckModels checks that the plugin lists every id in want and that
// complete holds for each of them (metadata filled in).
func CheckModels(t testing.TB, client *sdk.ProviderClient, complete func(sdk.ModelInfo) bool, want ...string) {
	t.Helper()
	models, err := client.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ok := map[string]bool{}
	for _, m := range models {
		ok[m.ID] = complete(m)
	}
	for _, id := range want {
		if !ok[id] {
			t.Errorf("model %s missing or without metadata: %+v", id, models)
		}
	}
}

// CheckStaleHandle checks that req on a handle prepared before a Configure
// with reconfig fails with stale_handle, saying to prepare the call again.
func CheckStaleHandle(t *testing.T, rules Rules, client *sdk.ProviderClient, h sdk.Handle, reconfig []byte, req sdk.StreamRequest) {
	t.Helper()
	if err := client.Configure(context.Background(), reconfig); err != nil {
		t.Fatal(err)
	}
	WantError(t, Stream(t, rules, client, h, req), sdk.KindStaleHandle, "prepare the call again")
}
