package deepseek

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/sdk"
)

// apiError is the error object of an OpenAI-compatible API:
// {"error":{"message":…,"type":…,"param":…,"code":…}}. Some servers send a
// bare string instead of the object, or a number as the code.
type apiError struct {
	Message string
	Type    string
	Code    string
}

func parseAPIError(raw json.RawMessage) (apiError, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return apiError{Message: s}, s != ""
	}
	var obj struct {
		Message json.RawMessage `json:"message"`
		Type    json.RawMessage `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return apiError{}, false
	}
	e := apiError{Message: scalar(obj.Message), Type: scalar(obj.Type), Code: scalar(obj.Code)}
	return e, e.Message != "" || e.Type != "" || e.Code != ""
}

// scalar renders a JSON string or number as text; anything else is "".
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func (e apiError) String() string {
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	var tags []string
	for _, t := range []string{e.Type, e.Code} {
		if t != "" && !containsString(tags, t) {
			tags = append(tags, t)
		}
	}
	if len(tags) > 0 {
		msg += " (" + strings.Join(tags, ", ") + ")"
	}
	return msg
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// kindForAPIError classifies an error object that arrived without a
// telling HTTP status (inside a 200 stream). Unknown errors are the
// provider's: provider_unavailable.
func kindForAPIError(e apiError) sdk.ErrorKind {
	for _, s := range []string{e.Type, e.Code} {
		s = strings.ToLower(s)
		switch {
		case s == "":
			continue
		case strings.Contains(s, "auth"), strings.Contains(s, "api_key"), strings.Contains(s, "permission"):
			return sdk.KindAuth
		case strings.Contains(s, "insufficient_quota"), strings.Contains(s, "balance"), strings.Contains(s, "billing"), strings.Contains(s, "payment"):
			return sdk.KindBilling
		case strings.Contains(s, "rate_limit"), strings.Contains(s, "too_many"):
			return sdk.KindRateLimited
		case strings.Contains(s, "timeout"):
			return sdk.KindTimeout
		case strings.Contains(s, "invalid_request"), strings.Contains(s, "context_length"), strings.Contains(s, "invalid_parameter"):
			return sdk.KindInvalidRequest
		case strings.Contains(s, "server_error"), strings.Contains(s, "overloaded"), strings.Contains(s, "unavailable"):
			return sdk.KindProviderUnavailable
		}
	}
	return sdk.KindProviderUnavailable
}

// statusError builds the error for a non-2xx response: the kind from the
// status (DESIGN §5, providerkit.KindForStatus), the server's own message
// in the text, Retry-After for 429/503.
func statusError(resp *http.Response, now time.Time) *sdk.Error {
	body := providerkit.ReadErrorBody(resp)
	detail := providerkit.BodyText(body)
	var envelope struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &envelope) == nil && len(envelope.Error) > 0 {
		if e, ok := parseAPIError(envelope.Error); ok {
			detail = e.String()
		}
	}
	return providerkit.StatusError("deepseek", resp, providerkit.KindForStatus(resp.StatusCode), detail, "", now)
}
