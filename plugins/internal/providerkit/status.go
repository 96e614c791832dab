package providerkit

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// MaxErrorBody bounds how much of an error response (a non-2xx answer, or
// a JSON body where a stream was expected) is read.
const MaxErrorBody = 64 << 10

// maxDetail bounds the server's text quoted in an error message.
const maxDetail = 2000

// ReadErrorBody reads at most [MaxErrorBody] bytes of an error response.
func ReadErrorBody(resp *http.Response) []byte {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	return body
}

// KindForStatus maps an HTTP status to an error kind by DESIGN §5:
// 401/403 auth, 402 billing, 429 rate_limited, 408 timeout; any other 5xx
// is the provider's (provider_unavailable), any other 4xx the request's
// (invalid_request). A provider whose API documents more statuses checks
// those first.
func KindForStatus(status int) sdk.ErrorKind {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return sdk.KindAuth
	case status == http.StatusPaymentRequired:
		return sdk.KindBilling
	case status == http.StatusTooManyRequests:
		return sdk.KindRateLimited
	case status == http.StatusRequestTimeout:
		return sdk.KindTimeout
	case status >= 500:
		return sdk.KindProviderUnavailable
	default:
		return sdk.KindInvalidRequest
	}
}

// StatusError is the error for a non-2xx response of the provider named
// name: "<name>: HTTP <status> from <url>: <detail>", the detail (the
// server's own message, or its trimmed body) cut at 2000 bytes or
// "(empty body)", then note when not empty (a request id); Retry-After
// when the server sent one.
func StatusError(name string, resp *http.Response, kind sdk.ErrorKind, detail, note string, now time.Time) *sdk.Error {
	if len(detail) > maxDetail {
		detail = detail[:maxDetail] + "…"
	}
	if detail == "" {
		detail = "(empty body)"
	}
	if note != "" {
		detail += "; " + note
	}
	return &sdk.Error{
		Kind:       kind,
		Message:    fmt.Sprintf("%s: HTTP %s from %s: %s", name, resp.Status, resp.Request.URL.Redacted(), detail),
		RetryAfter: RetryAfter(resp.Header.Get("Retry-After"), now),
	}
}

// BodyText is an error body as text for [StatusError] when the server's
// own message could not be read from it.
func BodyText(body []byte) string { return strings.TrimSpace(string(body)) }
