package providerkit

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// NewStreamRequest is the POST of the JSON body to url on ctx that asks
// for an event stream. setHeaders sets the provider's own headers (the
// configured ones, the key) first; Content-Type and Accept are then set
// over them. A url that is not one is invalid_request, named after the
// provider name.
func NewStreamRequest(ctx context.Context, name, url string, body []byte, setHeaders func(*http.Request)) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, sdk.Errorf(sdk.KindInvalidRequest, "%s: %v", name, err)
	}
	setHeaders(req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	return req, nil
}

// CheckStream sorts the answer to a stream request: nil when it is a 2xx
// stream to read; a non-2xx answer is statusError's, a JSON body (an
// error some servers send with 200, or a server that ignored stream=true)
// jsonError's.
func CheckStream(resp *http.Response, statusError func(*http.Response, time.Time) *sdk.Error, jsonError func(*http.Response) error) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(resp, time.Now())
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		return jsonError(resp)
	}
	return nil
}
