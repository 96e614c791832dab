package deepseek_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/plugins/internal/providerkit/providerkittest"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// textWant describes an assembled text or reasoning. Every figure was
// derived from the fixture file itself (deltas concatenated with a script
// while writing this test), never from this adapter's output.
type textWant struct {
	bytes int
	// deltas is how many upstream deltas carry the text. Over gRPC the SDK
	// may merge deltas that queued up behind the one it sends, so a host
	// gets between one (when there is text) and that many.
	deltas         int
	prefix, suffix string
	sha256         string // first 16 hex digits
}

func (w textWant) check(t *testing.T, what, got string, deltas int) {
	t.Helper()
	sum := sha256.Sum256([]byte(got))
	deltasOK := deltas <= w.deltas && (deltas > 0) == (w.deltas > 0)
	if len(got) != w.bytes || !deltasOK || !strings.HasPrefix(got, w.prefix) || !strings.HasSuffix(got, w.suffix) ||
		hex.EncodeToString(sum[:8]) != w.sha256 {
		t.Errorf("%s: %d bytes in %d deltas, sha %x, %q\nwant %d bytes in at most %d deltas, sha %s, prefix %q suffix %q",
			what, len(got), deltas, sum[:8], got, w.bytes, w.deltas, w.sha256, w.prefix, w.suffix)
	}
}

// exact is a textWant for a short text given in full.
func exact(s string, deltas int) textWant {
	sum := sha256.Sum256([]byte(s))
	return textWant{bytes: len(s), deltas: deltas, prefix: s, suffix: s, sha256: hex.EncodeToString(sum[:8])}
}

var none = exact("", 0)

type fixtureWant struct {
	text, reasoning textWant
	blocks          []sdk.BlockKind
	calls           []sdk.ToolCall
	finish          string
	usage           *sdk.Usage
	errKind         sdk.ErrorKind
	errMentions     []string
}

var (
	text      = sdk.BlockText
	reasoning = sdk.BlockReasoning
	tool      = sdk.BlockToolCall
)

func usage(prompt, completion, hit, miss, reasoningTokens int64) *sdk.Usage {
	return &sdk.Usage{PromptTokens: prompt, CompletionTokens: completion, CacheHitTokens: hit, CacheMissTokens: miss, ReasoningTokens: reasoningTokens}
}

// fixtureWants covers every file of fixtures/deepseek (TestEveryFixtureIsCovered
// keeps it that way).
var fixtureWants = map[string]fixtureWant{
	"vercel-deepseek-chat-text-length.2025-12.chunks.jsonl": {
		text:      textWant{bytes: 1859, deltas: 400, prefix: "## **Holiday Name:** Starlight", suffix: "5 minutes of silent looking at", sha256: "2293daa9001bc91d"},
		reasoning: none, blocks: []sdk.BlockKind{text}, finish: "length", usage: usage(13, 400, 0, 13, 0),
	},
	"vercel-deepseek-reasoner-reasoning-then-text.2025-12.chunks.jsonl": {
		text:      exact(`The word "strawberry" contains three "r"s.`, 13),
		reasoning: textWant{bytes: 606, deltas: 205, prefix: "We need to count the number of", suffix: "es, 3.\n\nThus, the answer is 3.", sha256: "01a5d04ca7e849fd"},
		blocks:    []sdk.BlockKind{reasoning, text}, finish: "stop", usage: usage(18, 219, 0, 18, 205),
	},
	"vercel-deepseek-reasoner-reasoning-then-toolcall-cachehit.2025-12.chunks.jsonl": {
		text:      none,
		reasoning: textWant{bytes: 191, deltas: 39, prefix: "The user is asking for the wea", suffix: `ameter set to "San Francisco".`, sha256: "e9e5190a993cf891"},
		blocks:    []sdk.BlockKind{reasoning, tool},
		calls:     []sdk.ToolCall{{ID: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", Name: "weather", Arguments: `{"location": "San Francisco"}`}},
		finish:    "tool_calls", usage: usage(339, 83, 320, 19, 39),
	},
	"vercel-deepseek-v4flash-reasoning-then-text.2026-08.chunks.jsonl": {
		text:      textWant{bytes: 49, deltas: 17, prefix: "There are **3** “r”s in **“str", suffix: "*3** “r”s in **“strawberry”**.", sha256: "acfc289b7bcb2def"},
		reasoning: textWant{bytes: 285, deltas: 88, prefix: "We need answer simple. Need co", suffix: "two. total 3 r's. Need answer.", sha256: "90e8018d6f351245"},
		blocks:    []sdk.BlockKind{reasoning, text}, finish: "stop", usage: usage(97, 106, 0, 97, 88),
	},
	"vercel-deepseek-v4flash-reasoning-then-toolcall-cachehit.2026-08.chunks.jsonl": {
		text:      none,
		reasoning: textWant{bytes: 80, deltas: 17, prefix: "The user asks about the weathe", suffix: "I should use the weather tool.", sha256: "0324d4a77ac2c15e"},
		blocks:    []sdk.BlockKind{reasoning, tool},
		calls:     []sdk.ToolCall{{ID: "call_00_IhCAliIHtM9gKpgfqbBV9873", Name: "weather", Arguments: `{"location": "San Francisco"}`}},
		finish:    "tool_calls", usage: usage(374, 61, 256, 118, 17),
	},
	"vercel-deepseek-v4flash-sanitized-usage-length.issue-19789.chunks.jsonl": {
		text: exact("sanitized", 1), reasoning: none, blocks: []sdk.BlockKind{text}, finish: "length", usage: usage(88, 4, 0, 88, 4),
	},
	"vercel-deepseek-v4flash-text.2026-08.chunks.jsonl": {
		text:      textWant{bytes: 456, deltas: 98, prefix: `Introducing "Lumina's Eve," a `, suffix: "erconnectedness of all things.", sha256: "8c26bae80a1b7947"},
		reasoning: none, blocks: []sdk.BlockKind{text}, finish: "stop", usage: usage(22, 98, 0, 22, 0),
	},
	"vercel-deepseek-v4flash-thinking-length-live.chunks.jsonl": {
		text: none, reasoning: exact("We need to respond with OK.", 7), blocks: []sdk.BlockKind{reasoning}, finish: "length", usage: usage(87, 8, 0, 87, 7),
	},
	"vercel-deepseek-v4pro-thinking-length.issue-19381.chunks.jsonl": {
		text: none, reasoning: exact("We need", 2), blocks: []sdk.BlockKind{reasoning}, finish: "length", usage: usage(87, 2, 0, 87, 2),
	},
	"ai4j-deepseek-chat-text.2025-12.sse": {
		text: exact("Hello! How can I assist you today? 😊", 10), reasoning: none, blocks: []sdk.BlockKind{text}, finish: "stop", usage: usage(12, 11, 0, 12, 0),
	},
	// The author elided chunks with two "......" lines and no blank line, so
	// under WHATWG rules two JSON payloads form one event: a malformed data
	// payload is a stream violation (TestElidedToolCallFixtureLineByLine
	// checks the content itself).
	"ai4j-deepseek-chat-text-then-2-parallel-toolcalls.2025-12.sse": {
		errKind: sdk.KindStreamViolation, errMentions: []string{"data event 3", "not a JSON chunk"},
	},
	// A third-party host with running usage totals on every chunk: the last
	// one counts; no cache fields at all means no hits.
	"ai4j-siliconflow-deepseek-r1-per-chunk-usage.2025-12.sse": {
		text:      exact("\nHello! How can I assist you today? 😊", 11),
		reasoning: exact("We. We can simply respond with a greeting.\n", 10),
		blocks:    []sdk.BlockKind{reasoning, text}, finish: "stop", usage: usage(294, 51, 0, 294, 38),
	},
	// Index starts at 1, the only tool delta with a name has no arguments
	// key, and the arguments stay empty: a call without arguments is {}.
	// Misses are prompt minus OpenAI-style cached_tokens.
	"coder-aibridge-claude-openaicompat-toolcall-index-1-usage-on-finish.sse": {
		text: exact("Now listing your Coder workspaces:", 5), reasoning: none, blocks: []sdk.BlockKind{text, tool},
		calls:  []sdk.ToolCall{{ID: "toolu_vrtx_01DbFqUgk6aAtJ4nDBqzFWDF", Name: "bmcp_coder_coder_list_workspaces", Arguments: "{}"}},
		finish: "tool_calls", usage: usage(25939, 58, 25429, 510, 0),
	},
	"coder-aibridge-openai-gpt41-error-event-mid-stream.sse": {
		errKind: sdk.KindProviderUnavailable, errMentions: []string{"The server had an error while processing your request", "server_error"},
	},
	// Index starts at 1 after text; an empty arguments delta; the file ends
	// "data: [DONE]\n" with a single LF; no usage at all.
	"vercel-openaicompat-anthropic-toolcall-index-starts-at-1.sse": {
		text: exact("Reading it.", 2), reasoning: none, blocks: []sdk.BlockKind{text, tool},
		calls:  []sdk.ToolCall{{ID: "toolu_sanitized", Name: "read_file", Arguments: `{"path": "a.txt"}`}},
		finish: "tool_calls",
	},
	// A keep-alive comment between data events, then a finish chunk and a
	// separate usage-only chunk (choices: []) folded into the finish; the
	// body ends "data: [DONE]" without any newline.
	"yven-dashscope-qwen-plus-keepalive-then-usage-only-chunk.sse": {
		text: exact("我是来自阿里云的超大规模语言模型，我叫通义千问。", 7), reasoning: none, blocks: []sdk.BlockKind{text}, finish: "stop", usage: usage(22, 17, 0, 22, 0),
	},
	// Replayed at full speed the keep-alive-only body just ends: truncated.
	// TestKeepAliveOnlyFixtureTimesOut replays it at its own pace.
	"synthetic/deepseek-queued-keepalive-only.reconstructed.sse": {
		errKind: sdk.KindTruncated, errMentions: []string{"after 0 data events"},
	},
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	for name, want := range fixtureWants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakedeepseek.New(t, fakedeepseek.Fixture(t, fixture(t, name)))
			got := connectInProcess(t, srv, nil).stream(t, userRequest("hi"))
			checkFixture(t, want, got)
		})
	}
}

func checkFixture(t *testing.T, want fixtureWant, got result) {
	t.Helper()
	if want.errKind != "" {
		wantError(t, got, want.errKind, want.errMentions...)
		for _, c := range got.Chunks {
			if c.Type == sdk.ChunkBlockEnd && got.Blocks[c.Index] == sdk.BlockToolCall {
				t.Error("an errored stream closed a tool block: a consumer could take it for a complete call")
			}
		}
		return
	}
	if got.Err != nil {
		t.Fatalf("unexpected error %s: %s", got.Err.Kind, got.Err.Message)
	}
	want.text.check(t, "text", got.Text, got.TextDeltas)
	want.reasoning.check(t, "reasoning", got.Reasoning, got.ReasoningDeltas)
	providerkittest.CheckEnd(t, got, want.blocks, want.calls, want.finish, want.usage)
}

func TestEveryFixtureIsCovered(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(fakedeepseek.FixturesDir(t), "deepseek")
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".sse") || strings.HasSuffix(path, ".jsonl")) {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := fixtureWants[f]; !ok {
			t.Errorf("fixture %s has no expectation in fixtureWants", f)
		}
	}
	if len(files) != len(fixtureWants) {
		t.Errorf("%d fixture files, %d expectations", len(files), len(fixtureWants))
	}
}

// TestElidedToolCallFixtureLineByLine reads the elided ai4j file the way a
// line-oriented parser does (the two "......" lines taken as an event
// boundary) to check its text and both parallel tool calls.
func TestElidedToolCallFixtureLineByLine(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(fixture(t, "ai4j-deepseek-chat-text-then-2-parallel-toolcalls.2025-12.sse"))
	if err != nil {
		t.Fatal(err)
	}
	const elision = "\n......\n......\n"
	if strings.Count(string(raw), elision) != 1 {
		t.Fatal("the fixture no longer has its one elision")
	}
	body := strings.Replace(string(raw), elision, "\n\n", 1)
	srv := fakedeepseek.New(t, fakedeepseek.SSE([]byte(body)))
	got := connectInProcess(t, srv, nil).stream(t, userRequest("weather?"))
	checkFixture(t, fixtureWant{
		text: exact("我可以帮。", 3), reasoning: none, blocks: []sdk.BlockKind{text, tool, tool},
		calls: []sdk.ToolCall{
			{ID: "call_00_JQSxFX1xOHGH6ajdpN88RMXO", Name: "get_current_weather", Arguments: `{"location": "北京", "format": "celsius"}`},
			{ID: "call_01_L8UtYbkfaMFr7hzsToGPWGfI", Name: "get_current_weather", Arguments: `{"location": "洛阳", "format": "celsius"}`},
		},
		finish: "tool_calls", usage: usage(491, 129, 448, 43, 0),
	}, got)
}

func TestKeepAliveOnlyFixtureTimesOut(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(fixture(t, "synthetic/deepseek-queued-keepalive-only.reconstructed.sse"))
	if err != nil {
		t.Fatal(err)
	}
	// A keep-alive every 40 ms: were they counted, the 250 ms deadline
	// would never fire and the body would end in truncation instead.
	srv := fakedeepseek.New(t, fakedeepseek.SSE(body).Drip(40*time.Millisecond))
	got := connectInProcess(t, srv, map[string]any{"timeout_first_token": "250ms"}).stream(t, userRequest("hi"))
	wantError(t, got, sdk.KindTimeout, "timeout_first_token", "keep-alive")
}
