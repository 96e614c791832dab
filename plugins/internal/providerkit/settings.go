package providerkit

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

// Defaults of the HTTP providers' settings when the block leaves them out.
const (
	DefaultFirstTokenTimeout = 120 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
)

// HTTPSettingsSchema is the schema of the settings of an HTTP provider
// block (provider-deepseek, provider-anthropic): the attributes besides
// "plugin" that the HCL block accepts, as written there (durations are
// strings such as "120s"). Each adapter reports it through
// sdk.ProviderDescriber; the host decodes the block against it, and
// Configure gets the result (ParseHTTPSettings). The api_key is secret.
func HTTPSettingsSchema(defaultBaseURL string) json.RawMessage {
	return schema.Object(
		schema.String("api_key", "the API key; use env(\"NAME\") rather than writing it out").Secret(),
		schema.String("base_url", "the API's http:// or https:// base URL").HTTPURL().Default(defaultBaseURL),
		schema.String("timeout_first_token", "how long to wait for the first data event, a duration such as \"120s\"").
			Duration().Default("120s"),
		schema.String("timeout_idle", "how long the stream may go without a data event, a duration such as \"60s\"").
			Duration().Default("60s"),
		schema.StringMap("headers", "extra HTTP headers sent with every request, name = value"),
		schema.Boolean("require_done", "whether a stream ending without its end marker counts as truncated").Default(true),
		schema.Integer("max_event_bytes", "the largest SSE line or event accepted, in bytes (default 16 MiB)").Min(1),
	).JSON()
}

// HTTPSettings is the JSON Configure gets for a block decoded against
// HTTPSettingsSchema: only the attributes the block sets.
type HTTPSettings struct {
	APIKey            string            `json:"api_key"`
	BaseURL           string            `json:"base_url"`
	TimeoutFirstToken string            `json:"timeout_first_token"`
	TimeoutIdle       string            `json:"timeout_idle"`
	Headers           map[string]string `json:"headers"`
	RequireDone       *bool             `json:"require_done"`
	MaxEventBytes     int               `json:"max_event_bytes"`
}

// HTTPConfig is HTTPSettings with the defaults applied and the durations
// parsed.
type HTTPConfig struct {
	APIKey      string
	BaseURL     string // "" when the block sets none: the adapter's default
	FirstToken  time.Duration
	Idle        time.Duration
	Headers     http.Header
	RequireDone bool
	MaxEvent    int // 0: the SSE parser's default
}

// ParseHTTPSettings decodes what Configure got; name prefixes its errors
// ("deepseek"). An empty message is an empty block.
func ParseHTTPSettings(name string, raw json.RawMessage) (HTTPConfig, error) {
	var s HTTPSettings
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &s); err != nil {
			return HTTPConfig{}, sdk.Errorf(sdk.KindInvalidRequest, "%s: provider settings are not valid JSON: %v", name, err)
		}
	}
	first, err := settingDuration(name, "timeout_first_token", s.TimeoutFirstToken, DefaultFirstTokenTimeout)
	if err != nil {
		return HTTPConfig{}, err
	}
	idle, err := settingDuration(name, "timeout_idle", s.TimeoutIdle, DefaultIdleTimeout)
	if err != nil {
		return HTTPConfig{}, err
	}
	if s.MaxEventBytes < 0 {
		return HTTPConfig{}, sdk.Errorf(sdk.KindInvalidRequest, "%s: max_event_bytes must not be negative; got %d", name, s.MaxEventBytes)
	}
	c := HTTPConfig{
		APIKey: strings.TrimSpace(s.APIKey), BaseURL: strings.TrimSpace(s.BaseURL),
		FirstToken: first, Idle: idle, Headers: http.Header{},
		RequireDone: s.RequireDone == nil || *s.RequireDone, MaxEvent: s.MaxEventBytes,
	}
	for k, v := range s.Headers {
		c.Headers.Set(k, v)
	}
	return c, nil
}

func settingDuration(name, attr, s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, sdk.Errorf(sdk.KindInvalidRequest, "%s: %s = %q is not a positive duration such as \"90s\"", name, attr, s)
	}
	return d, nil
}
