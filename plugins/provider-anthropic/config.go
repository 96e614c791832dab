package anthropic

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
	defaultBaseURL           = "https://api.anthropic.com"
	defaultFirstTokenTimeout = 120 * time.Second
	defaultIdleTimeout       = 60 * time.Second
	// apiVersion is the anthropic-version header; a headers entry of the
	// provider block overrides it.
	apiVersion = "2023-06-01"
)

// Settings is the provider block as the core sends it to Configure: the
// same attribute names as provider-deepseek's. require_done is accepted and
// ignored: a Messages stream always ends with message_stop.
type Settings struct {
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
	apiKey     string
	messages   string // full URL of POST /v1/messages
	models     string // full URL of GET /v1/models
	shown      string // messages URL with any password masked, for logs and errors
	firstToken time.Duration
	idle       time.Duration
	headers    http.Header
	maxEvent   int
}

func parseConfig(raw json.RawMessage) (*config, error) {
	var w Settings
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, sdk.Errorf(sdk.KindInvalidRequest, "anthropic: provider config is not valid JSON: %v", err)
		}
	}
	base, err := apiBase(w.BaseURL)
	if err != nil {
		return nil, err
	}
	if w.TimeoutFirstTokenMS < 0 || w.TimeoutIdleMS < 0 || w.MaxEventBytes < 0 {
		return nil, sdk.Errorf(sdk.KindInvalidRequest, "anthropic: timeouts and max_event_bytes must not be negative")
	}
	messages, models := *base, *base
	messages.Path += "/messages"
	models.Path += "/models"
	c := &config{
		apiKey:     strings.TrimSpace(w.APIKey),
		messages:   messages.String(),
		models:     models.String(),
		shown:      messages.Redacted(),
		firstToken: providerkit.Millis(w.TimeoutFirstTokenMS, defaultFirstTokenTimeout),
		idle:       providerkit.Millis(w.TimeoutIdleMS, defaultIdleTimeout),
		headers:    http.Header{"Anthropic-Version": {apiVersion}},
		maxEvent:   w.MaxEventBytes,
	}
	if c.maxEvent == 0 {
		c.maxEvent = sse.DefaultMaxEventSize
	}
	for k, v := range w.Headers {
		c.headers.Set(k, v)
	}
	return c, nil
}

// apiBase turns base_url into the URL of the API's /v1 folder:
// "https://api.anthropic.com", ".../v1" and ".../v1/messages" all name it.
func apiBase(base string) (*url.URL, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		base = defaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, sdk.Errorf(sdk.KindInvalidRequest, "anthropic: base_url %q is not an http(s) URL such as %q", base, defaultBaseURL)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/messages")
	if !strings.HasSuffix(p, "/v1") {
		p += "/v1"
	}
	u.Path, u.RawPath = p, ""
	return u, nil
}
