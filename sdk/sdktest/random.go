package sdktest

import (
	"fmt"
	"math/rand/v2"

	"github.com/harness-agent/harness/sdk"
)

// randomTexts are what RandomText picks from: empty, plain, HTML that
// encoding/json escapes, control characters and quotes, U+2028, non-ASCII,
// invalid UTF-8, JSON, and one text twice.
var randomTexts = []string{"", "a", "read notes.md", "<b>&amp;</b>", "line\nbreak\t\"quoted\"", "\u2028 é 日本",
	"\xff\xfe invalid", `{"path":"x"}`, "same", "same"}

// RandomText returns a text that exercises encoders: see randomTexts; one
// in four carries a random turn number, so texts differ between messages.
func RandomText(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return fmt.Sprintf("turn %d %s", r.IntN(1000), randomTexts[r.IntN(len(randomTexts))])
	}
	return randomTexts[r.IntN(len(randomTexts))]
}

// RandomMessage returns a message of any role with RandomText fields: an
// assistant message with reasoning, up to two tool calls and sometimes a
// reasoning block, a tool message with its call's id; some pinned, some
// errors. Tests of caches and encoders of conversations draw from it.
func RandomMessage(r *rand.Rand) sdk.Message {
	roles := []sdk.Role{sdk.RoleSystem, sdk.RoleUser, sdk.RoleAssistant, sdk.RoleTool}
	m := sdk.Message{Role: roles[r.IntN(len(roles))], Content: RandomText(r), Pinned: r.IntN(3) == 0, IsError: r.IntN(5) == 0}
	switch m.Role {
	case sdk.RoleAssistant:
		m.Reasoning = RandomText(r)
		for range r.IntN(3) {
			m.ToolCalls = append(m.ToolCalls, sdk.ToolCall{ID: RandomText(r), Name: "read_file", Arguments: RandomText(r)})
		}
		if r.IntN(3) == 0 {
			m.ReasoningBlocks = []sdk.ReasoningBlock{{Text: RandomText(r), Signature: "sig"}}
		}
	case sdk.RoleTool:
		m.ToolCallID = RandomText(r)
	}
	return m
}
