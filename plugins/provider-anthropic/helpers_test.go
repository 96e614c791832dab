package anthropic_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/providerkit/providerkittest"
	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

const testKey = "sk-ant-api03-0123456789abcdef0123456789abcdef-XYZW"

// fixture returns the path of a file in the recorded anthropic fixtures.
func fixture(t testing.TB, name string) string {
	return filepath.Join(fakeanthropic.FixturesDir(t), "anthropic", name)
}

// config is the provider block JSON the core would send, pointed at srv.
func config(srv *fakeanthropic.Server, overrides map[string]any) []byte {
	return providerkittest.Config(testKey, srv.URL, overrides)
}

// provider is a client for one configured provider, over the real gRPC
// boundary, with a prepared handle.
type provider struct {
	client *sdk.ProviderClient
	handle sdk.Handle
	model  sdk.ModelInfo
}

func connect(t testing.TB, client *sdk.ProviderClient, srv *fakeanthropic.Server, prep sdk.PrepareRequest, overrides map[string]any) provider {
	t.Helper()
	ctx := context.Background()
	if err := client.Configure(ctx, config(srv, overrides)); err != nil {
		t.Fatalf("configure: %v", err)
	}
	if prep.Model.ID == "" {
		prep.Model = sdk.ModelInfo{ID: "claude-sonnet-4-5", MaxOutput: 64_000}
	}
	h, err := client.PrepareCall(ctx, prep)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return provider{client: client, handle: h, model: prep.Model}
}

func connectInProcess(t testing.TB, srv *fakeanthropic.Server, overrides map[string]any) provider {
	t.Helper()
	return connect(t, sdktest.ConnectProvider(t, anthropic.New()), srv, sdk.PrepareRequest{}, overrides)
}

func userRequest(text string) sdk.StreamRequest {
	return sdk.StreamRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: text, Pinned: true}}}
}

// rules are what this provider's streams may do beyond the common
// StreamChunk protocol.
var rules = providerkittest.Rules{BlockGaps: true, Signatures: true}

// result is a stream checked against the StreamChunk protocol and
// assembled.
type result = providerkittest.Result

func (p provider) stream(t testing.TB, req sdk.StreamRequest) result {
	t.Helper()
	return providerkittest.Stream(t, rules, p.client, p.handle, req)
}

func assemble(t testing.TB, chunks []sdk.StreamChunk) result {
	t.Helper()
	return providerkittest.Assemble(t, rules, chunks)
}

// wantError asserts a terminal error of kind that mentions every fragment.
func wantError(t *testing.T, r result, kind sdk.ErrorKind, fragments ...string) {
	t.Helper()
	providerkittest.WantError(t, r, kind, fragments...)
}
