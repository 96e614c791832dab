package deepseek

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// TestKeyNeverLeaks sends a wrong key to a fake that, like DeepSeek,
// echoes its tail in the 401 body, and to servers that echo the whole key,
// and checks errors and logs (at trace level) for any piece of it.
func TestKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	const key = "sk-wrongkey9f8e7d6c5b4a39f8e7d6c5b4a3f00d"
	secrets := []string{key, "f00d", "sk-wrong", key[3:19], key[len(key)-12:]}
	tests := []struct {
		name string
		resp fakedeepseek.Response
		kind sdk.ErrorKind
		says string
	}{
		{"401 echoing the tail", fakedeepseek.Response{}, sdk.KindAuth, "Authentication Fails, Your api key: ****[REDACTED] is invalid"},
		{"400 echoing the key", fakedeepseek.HTTPError(400, "key "+key+" is not allowed here", "invalid_request_error", ""), sdk.KindInvalidRequest, "is not allowed here"},
		{"error object echoing a masked key", fakedeepseek.Chunks(`{"error":{"message":"bad key sk-wro…f00d","type":"authentication_error"}}`), sdk.KindAuth, "bad key sk-[REDACTED]"},
		{"error object echoing the key body", fakedeepseek.Chunks(`{"error":{"message":"bad key ` + key[3:] + `","type":"server_error"}}`), sdk.KindProviderUnavailable, "bad key [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace, JSONFormat: true})
			srv := fakedeepseek.New(t)
			if tt.name == "401 echoing the tail" {
				srv.RequireKey("sk-the-right-key-0000000000000000")
				srv.Enqueue(fakedeepseek.Scripted(fakedeepseek.Turn{Text: "never sent"}))
			} else {
				srv.Enqueue(tt.resp)
			}
			client := sdktest.ConnectProvider(t, newProvider(logger))
			cfg, _ := json.Marshal(map[string]any{"api_key": key, "base_url": srv.URL})
			if err := client.Configure(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			h, _ := client.PrepareCall(context.Background(), sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "deepseek-v4-flash"}})
			var errs []*sdk.Error
			err := client.Stream(context.Background(), h, sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}},
				func(c sdk.StreamChunk) error {
					if c.Type == sdk.ChunkError {
						errs = append(errs, c.Err)
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) != 1 || errs[0].Kind != tt.kind {
				t.Fatalf("errors %+v, want one of kind %s", errs, tt.kind)
			}
			if !strings.Contains(errs[0].Message, tt.says) {
				t.Errorf("message %q does not say %q", errs[0].Message, tt.says)
			}
			for _, s := range secrets {
				if strings.Contains(errs[0].Message, s) {
					t.Errorf("error message %q leaks %q", errs[0].Message, s)
				}
				if strings.Contains(logs.String(), s) {
					t.Errorf("logs leak %q:\n%s", s, logs.String())
				}
			}
			if !strings.Contains(logs.String(), "stream failed") {
				t.Errorf("the failure was not logged:\n%s", logs.String())
			}
		})
	}
}
