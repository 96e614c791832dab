package anthropic

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/sdk"
)

// kindForStatus maps an HTTP status of the Messages API to an error kind
// (https://docs.anthropic.com/en/api/errors): DESIGN §5's table
// (providerkit.KindForStatus), and a gateway's 504 is a timeout. 500
// api_error, 529 overloaded_error and proxies' 502/503 are the provider's;
// 400, 404 not_found_error, 413 request_too_large the request's.
func kindForStatus(status int) sdk.ErrorKind {
	if status == http.StatusGatewayTimeout {
		return sdk.KindTimeout
	}
	return providerkit.KindForStatus(status)
}

// kindForType maps an error object's type to a kind, for errors that come
// without a telling status (an error event inside a 200 stream). Unknown
// types are the provider's: provider_unavailable.
func kindForType(t string) sdk.ErrorKind {
	switch t {
	case "authentication_error", "permission_error":
		return sdk.KindAuth
	case "billing_error":
		return sdk.KindBilling
	case "rate_limit_error":
		return sdk.KindRateLimited
	case "timeout_error":
		return sdk.KindTimeout
	case "invalid_request_error", "not_found_error", "request_too_large":
		return sdk.KindInvalidRequest
	}
	return sdk.KindProviderUnavailable // overloaded_error, api_error, the unknown
}

// apiError is the API's error object: {"type":…,"message":…}.
type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e apiError) String() string {
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	if e.Type != "" {
		msg += " (" + e.Type + ")"
	}
	return msg
}

// billing reports an invalid_request_error that is really about money:
// the API answers 400 "Your credit balance is too low…".
func (e apiError) billing() bool {
	return strings.Contains(strings.ToLower(e.Message), "credit balance")
}

// parseEnvelope reads {"type":"error","error":{…}}.
func parseEnvelope(body []byte) (apiError, bool) {
	var env struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil || (env.Error.Type == "" && env.Error.Message == "") {
		return apiError{}, false
	}
	return *env.Error, true
}

// statusError builds the error for a non-2xx response: the kind from the
// status, the server's own message and request id in the text, retry-after
// when the server sent one.
func statusError(resp *http.Response, now time.Time) *sdk.Error {
	body := providerkit.ReadErrorBody(resp)
	kind := kindForStatus(resp.StatusCode)
	detail := providerkit.BodyText(body)
	if e, ok := parseEnvelope(body); ok {
		detail = e.String()
		if kind == sdk.KindInvalidRequest && e.billing() {
			kind = sdk.KindBilling
		}
	}
	var note string
	if id := resp.Header.Get("Request-Id"); id != "" {
		note = "request-id " + id
	}
	return providerkit.StatusError("anthropic", resp, kind, detail, note, now)
}
