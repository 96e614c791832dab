package anthropic_test

import (
	"context"
	"testing"

	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

// TestModelsListsWhatTheAPIOffers: once configured with a key, Models adds
// the ids GET /v1/models lists, with the metadata of the family they
// belong to; without a key, or when the listing fails, the built-ins.
func TestModelsListsWhatTheAPIOffers(t *testing.T) {
	t.Parallel()
	srv := fakeanthropic.New(t)
	srv.SetModels("claude-sonnet-4-5-20260101", "claude-opus-4-5", "claude-future-9")
	srv.RequireKey(testKey)
	client := sdktest.ConnectProvider(t, anthropic.New())
	byID := func() map[string]sdk.ModelInfo {
		models, err := client.Models(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]sdk.ModelInfo{}
		for _, m := range models {
			out[m.ID] = m
		}
		return out
	}
	if _, ok := byID()["claude-sonnet-4-5-20260101"]; ok {
		t.Error("an unconfigured provider asked the API")
	}
	connect(t, client, srv, sdk.PrepareRequest{}, nil)
	models := byID()
	dated, family := models["claude-sonnet-4-5-20260101"], models["claude-sonnet-4-5"]
	if dated.Pricing == nil || *dated.Pricing != *family.Pricing || dated.MaxOutput != family.MaxOutput {
		t.Errorf("a dated id does not take its family's metadata: %+v vs %+v", dated, family)
	}
	if f := models["claude-future-9"]; f.ContextWindow == 0 || f.Pricing != nil || !f.SupportsTools {
		t.Errorf("an unknown listed model: %+v", f)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Method != "GET" || last.Path != "/v1/models" || last.Header.Get("X-Api-Key") != testKey {
		t.Errorf("listing request %+v", last)
	}

	bad := fakeanthropic.New(t)
	bad.RequireKey("another")
	connect(t, client, bad, sdk.PrepareRequest{}, nil)
	if models := byID(); len(models) == 0 || models["claude-haiku-4-5"].Pricing == nil {
		t.Errorf("a failed listing does not fall back to the built-ins: %v", models)
	}
}
