package providerkit_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/sdk"
)

func TestKindForStatus(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]sdk.ErrorKind{
		400: sdk.KindInvalidRequest, 401: sdk.KindAuth, 402: sdk.KindBilling, 403: sdk.KindAuth,
		404: sdk.KindInvalidRequest, 408: sdk.KindTimeout, 413: sdk.KindInvalidRequest, 429: sdk.KindRateLimited,
		500: sdk.KindProviderUnavailable, 503: sdk.KindProviderUnavailable, 504: sdk.KindProviderUnavailable,
	} {
		if got := providerkit.KindForStatus(status); got != want {
			t.Errorf("KindForStatus(%d) = %s, want %s", status, got, want)
		}
	}
}

func TestStatusError(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://user:secret@api.example/v1/chat")
	resp := &http.Response{Status: "429 Too Many Requests", Header: http.Header{"Retry-After": {"7"}}, Request: &http.Request{URL: u}}
	now := time.Now()

	e := providerkit.StatusError("demo", resp, sdk.KindRateLimited, "", "request-id r1", now)
	if e.Kind != sdk.KindRateLimited || e.RetryAfter != 7*time.Second {
		t.Errorf("kind %s retry-after %s, want rate_limited and 7s", e.Kind, e.RetryAfter)
	}
	if want := "demo: HTTP 429 Too Many Requests from https://user:xxxxx@api.example/v1/chat: (empty body); request-id r1"; e.Message != want {
		t.Errorf("message\n%s\nwant\n%s", e.Message, want)
	}

	long := strings.Repeat("x", 5000)
	e = providerkit.StatusError("demo", resp, sdk.KindRateLimited, long, "", now)
	if !strings.HasSuffix(e.Message, strings.Repeat("x", 2000)+"…") || strings.Contains(e.Message, strings.Repeat("x", 2001)) {
		t.Errorf("a long detail is not cut at 2000 bytes: %d bytes", len(e.Message))
	}
	if got := providerkit.BodyText([]byte("  oops \n")); got != "oops" {
		t.Errorf("BodyText = %q, want %q", got, "oops")
	}
}
