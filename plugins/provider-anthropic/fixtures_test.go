package anthropic_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/plugins/internal/providerkit/providerkittest"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

// fixtureWant is what one recorded stream assembles to. Every figure was
// derived from the fixture file itself (deltas concatenated and usage read
// with a script while writing this test), never from this adapter's
// output.
type fixtureWant struct {
	textBytes int
	textSHA   string // first 16 hex digits of the sha256 of the text
	reasoning string
	signature string // prefix of the one signature, "" for none
	blocks    []sdk.BlockKind
	calls     []sdk.ToolCall
	finish    string
	usage     *sdk.Usage
}

var (
	text      = sdk.BlockText
	reasoning = sdk.BlockReasoning
	tool      = sdk.BlockToolCall
)

// usage builds the expected SDK usage from the wire figures: input_tokens
// (misses), cache_creation_input_tokens (writes), cache_read_input_tokens
// (hits), output_tokens.
func usage(input, write, read, output int64) *sdk.Usage {
	return &sdk.Usage{PromptTokens: input + write + read, CompletionTokens: output, CacheHitTokens: read, CacheMissTokens: input, CacheWriteTokens: write}
}

const weatherSF = `{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}`

// fixtureWants covers every file of fixtures/anthropic
// (TestEveryFixtureIsCovered keeps it that way).
var fixtureWants = map[string]fixtureWant{
	"vercel-anthropic-text.chunks.jsonl": {
		textBytes: 108, textSHA: "3ff17711b62557e4", blocks: []sdk.BlockKind{text}, finish: "stop", usage: usage(12, 0, 0, 30),
	},
	"vercel-anthropic-json-tool.1.chunks.jsonl": {
		textSHA: "e3b0c44298fc1c14", blocks: []sdk.BlockKind{tool}, finish: "tool_calls", usage: usage(849, 0, 0, 47),
		calls: []sdk.ToolCall{{ID: "toolu_01KFbKqPYSuAKujiL6mTfzYA", Name: "json", Arguments: weatherSF}},
	},
	"vercel-anthropic-json-tool.2.chunks.jsonl": {
		textBytes: 35, textSHA: "e2c228e16d088cc4", blocks: []sdk.BlockKind{text, tool}, finish: "tool_calls", usage: usage(849, 0, 0, 47),
		calls: []sdk.ToolCall{{ID: "toolu_01KFbKqPYSuAKujiL6mTfzYA", Name: "json", Arguments: weatherSF}},
	},
	"vercel-anthropic-json-other-tool.1.chunks.jsonl": {
		textSHA: "e3b0c44298fc1c14", blocks: []sdk.BlockKind{tool}, finish: "tool_calls", usage: usage(843, 0, 0, 28),
		calls: []sdk.ToolCall{{ID: "toolu_019Zvehfe1XQWweT1pm7okyt", Name: "weather", Arguments: `{"location": "San Francisco"}`}},
	},
	"vercel-anthropic-tool-no-args.chunks.jsonl": {
		textBytes: 35, textSHA: "54fc8410f77caa6b", blocks: []sdk.BlockKind{text, tool}, finish: "tool_calls", usage: usage(565, 0, 0, 48),
		calls: []sdk.ToolCall{{ID: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", Name: "updateIssueList", Arguments: "{}"}},
	},
	"vercel-anthropic-clear-thinking.1.chunks.jsonl": {
		textBytes: 14, textSHA: "71ff7ea726e9dd71", blocks: []sdk.BlockKind{reasoning, text}, finish: "stop", usage: usage(69, 0, 0, 53),
		reasoning: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
		signature: "EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPV",
	},
	"vercel-anthropic-refusal.chunks.jsonl": {
		// No content block: the refusal's explanation (stop_details) becomes
		// the only text, "Refused: This request triggered … (category cyber)".
		textBytes: 136, textSHA: "077725eb966d1ead", blocks: []sdk.BlockKind{text}, finish: "refusal", usage: usage(18, 0, 0, 5),
	},
	"vercel-anthropic-message-delta-input-tokens.chunks.jsonl": {
		textBytes: 4, textSHA: "9795c5ff8937f235", blocks: []sdk.BlockKind{text}, finish: "stop", usage: usage(61, 0, 0, 2),
	},
	"vercel-anthropic-code-execution-20260120-prompt-cache.1.chunks.jsonl": {
		// Two server_tool_use and two bash_code_execution_tool_result blocks
		// are skipped: only the text block at index 4 is the client's.
		textBytes: 62, textSHA: "963c1dfa0c8992ce", blocks: []sdk.BlockKind{text}, finish: "stop", usage: usage(6, 3337, 6289, 198),
	},
	"vercel-duplicate-message-start.chunks.jsonl": {
		textBytes: 13, textSHA: "dffd6021bb2bd5b0", blocks: []sdk.BlockKind{text}, finish: "stop", usage: usage(17, 0, 0, 227),
	},
}

func checkFixture(t *testing.T, name string, got result) {
	t.Helper()
	want, ok := fixtureWants[name]
	if !ok {
		t.Fatalf("no expectation for %s", name)
	}
	if got.Err != nil {
		t.Fatalf("%s: stream failed: %v", name, got.Err)
	}
	sum := sha256.Sum256([]byte(got.Text))
	if len(got.Text) != want.textBytes || hex.EncodeToString(sum[:8]) != want.textSHA {
		t.Errorf("text %q (%d bytes, sha %x), want %d bytes sha %s", got.Text, len(got.Text), sum[:8], want.textBytes, want.textSHA)
	}
	if got.Reasoning != want.reasoning {
		t.Errorf("reasoning %q, want %q", got.Reasoning, want.reasoning)
	}
	switch {
	case want.signature == "" && len(got.Signatures) > 0:
		t.Errorf("signatures %q, want none", got.Signatures)
	case want.signature != "" && (len(got.Signatures) != 1 || !strings.HasPrefix(got.Signatures[0], want.signature) || len(got.Signatures[0]) != 332):
		t.Errorf("signatures %q, want one of 332 bytes starting %q", got.Signatures, want.signature)
	}
	providerkittest.CheckEnd(t, got, want.blocks, want.calls, want.finish, want.usage)
}

func fixtureNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fakeanthropic.FixturesDir(t), "anthropic", "*.chunks.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no anthropic fixtures: %v", err)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	return names
}

func TestEveryFixtureIsCovered(t *testing.T) {
	t.Parallel()
	names := fixtureNames(t)
	for _, n := range names {
		if _, ok := fixtureWants[n]; !ok {
			t.Errorf("fixture %s has no expectation in fixtureWants", n)
		}
	}
	if len(names) != len(fixtureWants) {
		t.Errorf("%d fixtures, %d expectations", len(names), len(fixtureWants))
	}
	if _, err := os.Stat(filepath.Join(fakeanthropic.FixturesDir(t), "anthropic", "SOURCES.md")); err != nil {
		t.Errorf("fixtures/anthropic has no SOURCES.md: %v", err)
	}
}

// TestFixtures replays every recorded stream through the fake server and
// the provider over the gRPC boundary.
func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakeanthropic.New(t, fakeanthropic.Fixture(t, fixture(t, name)))
			checkFixture(t, name, connectInProcess(t, srv, nil).stream(t, userRequest("hi")))
		})
	}
}
