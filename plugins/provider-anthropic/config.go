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

const (
	// defaultBaseURL is where requests go when the block sets no base_url.
	defaultBaseURL = "https://api.anthropic.com"
	// apiVersion is the anthropic-version header; a headers entry of the
	// provider block overrides it.
	apiVersion = "2023-06-01"
)

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

// parseConfig reads the settings the host decoded against
// providerkit.HTTPSettingsSchema, the same attributes as provider-deepseek's.
// require_done is accepted and ignored: a Messages stream always ends with
// message_stop.
func parseConfig(raw json.RawMessage) (*config, error) {
	s, err := providerkit.ParseHTTPSettings("anthropic", raw)
	if err != nil {
		return nil, err
	}
	base, err := apiBase(s.BaseURL)
	if err != nil {
		return nil, err
	}
	messages, models := *base, *base
	messages.Path += "/messages"
	models.Path += "/models"
	c := &config{
		apiKey:     s.APIKey,
		messages:   messages.String(),
		models:     models.String(),
		shown:      messages.Redacted(),
		firstToken: s.FirstToken,
		idle:       s.Idle,
		headers:    http.Header{"Anthropic-Version": {apiVersion}},
		maxEvent:   s.MaxEvent,
	}
	if c.maxEvent == 0 {
		c.maxEvent = sse.DefaultMaxEventSize
	}
	for k, v := range s.Headers {
		c.headers[k] = v
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
