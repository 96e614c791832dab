package deepseek_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/providerkit/providerkittest"
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// readTurnSSE is a DeepSeek answer asking for one read, as the fake
// server's ReadSession writes it: text and tool-call arguments in deltas
// of 4 characters, the finish chunk with usage, [DONE].
func readTurnSSE() []byte {
	var b strings.Builder
	chunk := func(delta, finish, usage string) {
		fmt.Fprintf(&b, `data: {"id":"f","object":"chat.completion.chunk","created":1,"model":"deepseek-chat","system_fingerprint":"fp","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]%s}`+"\n\n", delta, finish, usage)
	}
	chunk(`{"role":"assistant","content":""}`, "null", "")
	text := "Let me read the notes."
	for i := 0; i < len(text); i += 4 {
		chunk(fmt.Sprintf(`{"content":%q}`, text[i:min(i+4, len(text))]), "null", "")
	}
	chunk(`{"tool_calls":[{"index":0,"id":"call_00_fake0100","type":"function","function":{"name":"read_file","arguments":""}}]}`, "null", "")
	args := `{"path": "notes-100.md"}`
	for i := 0; i < len(args); i += 4 {
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}`, args[i:min(i+4, len(args))]), "null", "")
	}
	chunk(`{}`, `"tool_calls"`, `,"usage":{"prompt_tokens":9000,"completion_tokens":20,"total_tokens":9020,"prompt_cache_hit_tokens":8960,"prompt_cache_miss_tokens":40}`)
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// readSession is the conversation of a session after turns-1 reads, as
// harness sends it: a system prompt, the task, then an assistant message
// calling read_file and its result per turn.
func readSession(turns int) []sdk.Message {
	msgs := []sdk.Message{
		{Role: sdk.RoleSystem, Content: strings.Repeat("You are an agent run by harness. Use tools to look before you act.\n", 14)},
		{Role: sdk.RoleUser, Content: "Summarize\n\n<session date=\"2026-12-02\" workspace=\"/tmp/w\" />"},
	}
	for k := 1; k < turns; k++ {
		id := fmt.Sprintf("call_00_fake%04d", k)
		msgs = append(msgs,
			sdk.Message{Role: sdk.RoleAssistant, Content: "Let me read the notes.",
				ToolCalls: []sdk.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path": "notes-%d.md"}`, k)}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: id, Content: "     1\t# Notes\n     2\t\n     3\t- TODO: the parser\n     4\t- TODO: the docs\n"})
	}
	return msgs
}

// BenchmarkTurn is one turn late in a long session through the whole
// provider path, host client included: the request of turn 100 (about 200
// messages, the last two new, the rest reused from the previous request
// the plugin keeps) over gRPC, its body built and posted, and an answer
// asking for one more read streamed back. The server only drains the body
// and writes a fixed answer, so the time is the client's.
func BenchmarkTurn(b *testing.B) {
	for _, turns := range []int{2, 100} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) { benchTurn(b, turns) })
	}
}

func benchTurn(b *testing.B, turns int) {
	answer := readTurnSSE()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(answer)
	}))
	b.Cleanup(srv.Close)
	client := sdktest.ConnectProvider(b, deepseek.New())
	ctx := context.Background()
	if err := client.Configure(ctx, providerkittest.Config(testKey, srv.URL, nil)); err != nil {
		b.Fatal(err)
	}
	h, err := client.PrepareCall(ctx, sdk.PrepareRequest{Model: sdk.ModelInfo{ID: "deepseek-chat"}})
	if err != nil {
		b.Fatal(err)
	}
	base := readSession(turns)
	req := sdk.StreamRequest{Model: sdk.ModelInfo{ID: "deepseek-chat"}, ToolChoice: "auto", MaxOutput: 384000,
		Tools: []sdk.ToolDefinition{{Name: "read_file", Description: strings.Repeat("Reads a text file in the workspace. ", 60),
			Parameters: []byte(`{"additionalProperties":false,"properties":{"limit":{"description":"Number of lines to return. Default and maximum 2000.","minimum":1,"type":"integer"},"offset":{"description":"First line to return, 1-based. Default 1.","minimum":1,"type":"integer"},"path":{"description":"File to read: relative to the workspace root, or absolute inside it.","type":"string"}},"required":["path"],"type":"object"}`)}}}
	// Each turn adds two messages, the next read and its result, as a
	// session's turn does; every 10 turns the conversation goes back to
	// its first turns-1 reads (that request reuses a shorter prefix than
	// the plugin keeps, which copies it), so it stays about that long.
	conv := slices.Grow(base, 40)
	turn := func(i int) sdk.StreamRequest {
		if i%10 == 0 {
			conv = conv[:len(base)]
		}
		id := fmt.Sprintf("call_01_bench%d", i)
		conv = append(conv,
			sdk.Message{Role: sdk.RoleAssistant, Content: "Let me read the notes.", ToolCalls: []sdk.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path": "notes-100.md"}`}}},
			sdk.Message{Role: sdk.RoleTool, ToolCallID: id, Content: fmt.Sprintf("     1\t# Notes %d\n", i)})
		r := req
		r.Messages = conv
		return r
	}
	run := func(i int) {
		calls := 0
		err := client.Stream(ctx, h, turn(i), func(c sdk.StreamChunk) error {
			if c.Type == sdk.ChunkError {
				b.Fatalf("stream error: %v", c.Err)
			}
			if c.Type == sdk.ChunkBlockStart && c.Kind == sdk.BlockToolCall {
				calls++
			}
			return nil
		})
		if err != nil || calls != 1 {
			b.Fatalf("%d tool calls, err %v", calls, err)
		}
	}
	run(-1) // the plugin keeps a conversation, its encodings are cached
	b.ReportAllocs()
	b.ResetTimer()
	cpu := deepseek.ProcessCPU()
	for i := range b.N {
		run(i)
	}
	b.ReportMetric(float64((deepseek.ProcessCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
