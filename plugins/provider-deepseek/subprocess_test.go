package deepseek_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/providerkit/providerkittest"
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// startPlugin runs the standalone binary the way a host does.
func startPlugin(t *testing.T) *sdk.ProviderClient {
	t.Helper()
	return sdktest.StartProvider(t, pluginBinary(t))
}

// TestSubprocess replays fixtures through the real plugin process.
func TestSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the plugin binary")
	}
	t.Parallel()
	client := startPlugin(t)

	providerkittest.CheckHTTPSettingsSchema(t, client)
	providerkittest.CheckModels(t, client, func(m sdk.ModelInfo) bool {
		return m.Pricing != nil && m.ContextWindow > 0 && m.MaxOutput > 0 && m.SupportsTools
	}, "deepseek-chat", "deepseek-reasoner", "deepseek-v4-flash", "deepseek-v4-pro")

	for _, name := range []string{
		"vercel-deepseek-v4flash-reasoning-then-toolcall-cachehit.2026-08.chunks.jsonl",
		"vercel-deepseek-chat-text-length.2025-12.chunks.jsonl",
		"yven-dashscope-qwen-plus-keepalive-then-usage-only-chunk.sse",
		"coder-aibridge-openai-gpt41-error-event-mid-stream.sse",
	} {
		t.Run(name, func(t *testing.T) {
			srv := fakedeepseek.New(t, fakedeepseek.Fixture(t, fixture(t, name)))
			got := connect(t, client, srv, "deepseek-v4-flash", nil).stream(t, userRequest("hi"))
			checkFixture(t, fixtureWants[name], got)
		})
	}

	t.Run("401 never shows the key", func(t *testing.T) {
		srv := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{Text: "unreachable"}))
		srv.RequireKey("sk-another-key-entirely-000000000000")
		got := connect(t, client, srv, "deepseek-v4-flash", nil).stream(t, userRequest("hi"))
		wantError(t, got, sdk.KindAuth, "Authentication Fails")
		if strings.Contains(got.Err.Message, testKey[len(testKey)-4:]) || strings.Contains(got.Err.Message, testKey) {
			t.Errorf("the key leaks: %s", got.Err.Message)
		}
	})

	t.Run("stale handle after reconfiguring", func(t *testing.T) {
		srv := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{Text: "ok"}))
		p := connect(t, client, srv, "deepseek-v4-flash", nil)
		reconfig, _ := json.Marshal(map[string]any{"api_key": testKey, "base_url": srv.URL})
		providerkittest.CheckStaleHandle(t, rules, client, p.handle, reconfig, userRequest("hi"))
	})
}

// TestSubprocessReusePrefix runs a growing session through the real plugin
// process, whose requests after the first send only their new messages
// (reuse_prefix), and checks that every body DeepSeek receives carries
// the conversation a fresh plugin given every message builds: through a
// compaction, a request the host cannot encode (the plugin never sees it,
// so the next one names a conversation it does not hold and is sent
// again whole), a second handle, and a reconfiguration.
func TestSubprocessReusePrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the plugin binary")
	}
	t.Parallel()
	ctx := context.Background()
	reused := fakedeepseek.New(t)
	whole := fakedeepseek.New(t)
	for _, srv := range []*fakedeepseek.Server{reused, whole} {
		srv.Script(func(fakedeepseek.Request) fakedeepseek.Response {
			return fakedeepseek.Scripted(fakedeepseek.Turn{Text: "ok"})
		})
	}
	p := connect(t, startPlugin(t), reused, "deepseek-chat", nil)
	other, err := p.client.PrepareCall(ctx, sdk.PrepareRequest{Model: p.model})
	if err != nil {
		t.Fatal(err)
	}
	fresh := connect(t, sdktest.ConnectProvider(t, deepseek.New()), whole, "deepseek-chat", nil)
	msgs := []sdk.Message{{Role: sdk.RoleSystem, Content: "You are a helpful agent.", Pinned: true}, {Role: sdk.RoleUser, Content: "Summarize the notes", Pinned: true}}
	for turn := range 40 {
		switch turn {
		case 12: // compacted: the head, a summary, the last turn
			msgs = append(msgs[:2:2], sdk.Message{Role: sdk.RoleUser, Content: "Summary of the earlier turns."}, msgs[len(msgs)-2], msgs[len(msgs)-1])
		case 20: // a new adapter generation: handles prepared again
			p = connect(t, p.client, reused, "deepseek-chat", nil)
			if other, err = p.client.PrepareCall(ctx, sdk.PrepareRequest{Model: p.model}); err != nil {
				t.Fatal(err)
			}
		}
		id := fmt.Sprintf("call_%d", turn)
		msgs = append(msgs, sdk.Message{Role: sdk.RoleAssistant, Content: "Let me read the notes.", ToolCalls: []sdk.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"notes-%d.md"}`, turn)}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: id, Content: fmt.Sprintf("     1\t# Notes %d\n", turn)})
		req := sdk.StreamRequest{Messages: msgs}
		if turn == 30 {
			bad := append(msgs[:len(msgs):len(msgs)], sdk.Message{Role: sdk.RoleUser, Content: "\xff not UTF-8"})
			if err := p.client.Stream(ctx, p.handle, sdk.StreamRequest{Messages: bad}, func(sdk.StreamChunk) error { return nil }); err == nil {
				t.Fatal("a request with invalid UTF-8 was sent")
			}
		}
		h := p.handle
		if turn%7 == 3 {
			h = other // another handle, its own conversation
		}
		if got := providerkittest.Stream(t, rules, p.client, h, req); got.Err != nil || got.Text != "ok" {
			t.Fatalf("turn %d: %+v", turn, got)
		}
		// A handle of its own: its first request carries every message.
		if fresh.handle, err = fresh.client.PrepareCall(ctx, sdk.PrepareRequest{Model: fresh.model}); err != nil {
			t.Fatal(err)
		}
		if want := fresh.stream(t, req); want.Err != nil {
			t.Fatalf("turn %d, every message: %v", turn, want.Err)
		}
		gotBody, wantBody := lastBody(t, reused), lastBody(t, whole)
		if !reflect.DeepEqual(gotBody["messages"], wantBody["messages"]) {
			t.Fatalf("turn %d: DeepSeek got the messages\n%v\nwant\n%v", turn, gotBody["messages"], wantBody["messages"])
		}
	}
}

func lastBody(t *testing.T, srv *fakedeepseek.Server) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	return reqs[len(reqs)-1].Body
}
