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

// defaultBaseURL is where requests go when the block sets no base_url.
const defaultBaseURL = "https://api.deepseek.com"

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

// parseConfig reads the settings the host decoded against
// providerkit.HTTPSettingsSchema.
func parseConfig(raw json.RawMessage) (*config, error) {
	s, err := providerkit.ParseHTTPSettings("deepseek", raw)
	if err != nil {
		return nil, err
	}
	endpoint, shown, err := chatEndpoint(s.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &config{
		apiKey:      s.APIKey,
		endpoint:    endpoint,
		shown:       shown,
		firstToken:  s.FirstToken,
		idle:        s.Idle,
		headers:     s.Headers,
		requireDone: s.RequireDone,
		maxEvent:    s.MaxEvent,
	}
	if c.maxEvent == 0 {
		c.maxEvent = sse.DefaultMaxEventSize
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
