package deepseek

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/plugins/internal/sse"
	"github.com/harness-agent/harness/sdk"
)

// Defaults for the provider block attributes the core leaves unset.
const (
	defaultBaseURL           = "https://api.deepseek.com"
	defaultFirstTokenTimeout = 120 * time.Second
	defaultIdleTimeout       = 60 * time.Second
)

// wireConfig is the JSON the core sends to Configure.
type wireConfig struct {
	APIKey              string            `json:"api_key"`
	BaseURL             string            `json:"base_url"`
	TimeoutFirstTokenMS int64             `json:"timeout_first_token_ms"`
	TimeoutIdleMS       int64             `json:"timeout_idle_ms"`
	Headers             map[string]string `json:"headers"`
	RequireDone         *bool             `json:"require_done"`
	// MaxEventBytes caps one SSE line or event (default sse.DefaultMaxEventSize).
	MaxEventBytes int `json:"max_event_bytes"`
}

// config is one adapter generation's settings, immutable once built.
type config struct {
	apiKey      string
	endpoint    string // full URL of the chat completions resource
	shown       string // endpoint with any password masked, for logs and errors
	firstToken  time.Duration
	idle        time.Duration
	headers     http.Header
	requireDone bool
	maxEvent    int
}

func parseConfig(raw json.RawMessage) (*config, error) {
	var w wireConfig
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, sdk.Errorf(sdk.KindInvalidRequest, "deepseek: provider config is not valid JSON: %v", err)
		}
	}
	endpoint, shown, err := chatEndpoint(w.BaseURL)
	if err != nil {
		return nil, err
	}
	if w.TimeoutFirstTokenMS < 0 || w.TimeoutIdleMS < 0 || w.MaxEventBytes < 0 {
		return nil, sdk.Errorf(sdk.KindInvalidRequest, "deepseek: timeouts and max_event_bytes must not be negative")
	}
	c := &config{
		apiKey:      strings.TrimSpace(w.APIKey),
		endpoint:    endpoint,
		shown:       shown,
		firstToken:  providerkit.Millis(w.TimeoutFirstTokenMS, defaultFirstTokenTimeout),
		idle:        providerkit.Millis(w.TimeoutIdleMS, defaultIdleTimeout),
		headers:     http.Header{},
		requireDone: w.RequireDone == nil || *w.RequireDone,
		maxEvent:    w.MaxEventBytes,
	}
	if c.maxEvent == 0 {
		c.maxEvent = sse.DefaultMaxEventSize
	}
	for k, v := range w.Headers {
		c.headers.Set(k, v)
	}
	return c, nil
}

// chatEndpoint turns base_url into the chat completions URL. DeepSeek
// serves the API both at the root and under /v1, so "https://api.deepseek.com"
// and "https://api.deepseek.com/v1" both work: the path is kept as given and
// "/chat/completions" is appended. A base_url that already ends in
// /chat/completions is used as it is.
func chatEndpoint(base string) (endpoint, shown string, err error) {
	base = strings.TrimSpace(base)
	if base == "" {
		base = defaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", sdk.Errorf(sdk.KindInvalidRequest, "deepseek: base_url %q is not an http(s) URL such as %q", base, defaultBaseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/chat/completions") {
		u.Path += "/chat/completions"
	}
	u.RawPath = ""
	return u.String(), u.Redacted(), nil
}
