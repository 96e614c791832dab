package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"strings"
)

// check reports what the real API would refuse with a 400, or "".
func check(body map[string]json.RawMessage, req *wireRequest, p prompt) string {
	if _, ok := body["max_tokens"]; !ok {
		return "max_tokens: Field required"
	}
	if len(req.Messages) == 0 {
		return "messages: at least one message is required"
	}
	if req.Messages[0].Role != "user" {
		return `messages: first message must use the "user" role`
	}
	if n := len(p.breakpoints); n > maxBreakpoints {
		return fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", maxBreakpoints, n)
	}
	if msg := checkThinking(body); msg != "" {
		return msg
	}
	if msg := checkFinalThinking(body, req); msg != "" {
		return msg
	}
	var open []string // tool_use ids the next user turn must answer
	for i, m := range req.Messages {
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
			Thinking  string `json:"thinking"`
			Signature string `json:"signature"`
			Text      string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		answered := map[string]bool{}
		var uses []string
		for j, b := range blocks {
			switch b.Type {
			case "tool_result":
				if !contains(open, b.ToolUseID) {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			case "tool_use":
				uses = append(uses, b.ID)
			case "thinking":
				if m.Role == "assistant" && b.Signature != Sign(b.Thinking) {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
			case "text":
				if strings.TrimSpace(b.Text) == "" {
					return fmt.Sprintf("messages.%d.content.%d: text content blocks must contain non-whitespace text", i, j)
				}
			}
		}
		var missing []string
		for _, id := range open {
			if !answered[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", "))
		}
		open = uses
	}
	return ""
}

func checkThinking(body map[string]json.RawMessage) string {
	raw, ok := body["thinking"]
	if !ok {
		return ""
	}
	var th struct {
		Type         string `json:"type"`
		BudgetTokens int64  `json:"budget_tokens"`
	}
	var maxTokens int64
	_ = json.Unmarshal(raw, &th)
	_ = json.Unmarshal(body["max_tokens"], &maxTokens)
	switch {
	case th.Type != "enabled":
		return ""
	case th.BudgetTokens < 1024:
		return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
	case th.BudgetTokens >= maxTokens:
		return "`max_tokens` must be greater than `thinking.budget_tokens`"
	}
	if _, ok := body["temperature"]; ok {
		return "`temperature` may only be set to 1 when thinking is enabled"
	}
	return ""
}

// checkFinalThinking: with thinking on, the last assistant message, when
// it used tools, must start with its thinking block.
func checkFinalThinking(body map[string]json.RawMessage, req *wireRequest) string {
	var th struct {
		Type string `json:"type"`
	}
	if raw, ok := body["thinking"]; !ok || json.Unmarshal(raw, &th) != nil || th.Type != "enabled" {
		return ""
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role != "assistant" {
			continue
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(req.Messages[i].Content, &blocks)
		usesTools := false
		for _, b := range blocks {
			usesTools = usesTools || b.Type == "tool_use"
		}
		if usesTools && blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking" {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.", i, blocks[0].Type)
		}
		return ""
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
