package agent

import (
	"encoding/json"

	"github.com/harness-agent/harness/sdk"
)

// promptBytes is a canonical serialization of what a request sends: the
// tools, then the messages in order. Providers build their own bodies, but
// they keep this order, so the bytes a request shares with the previous
// one track what the provider's prefix cache can hit.
func promptBytes(msgs []sdk.Message, defs []sdk.ToolDefinition) []byte {
	type message struct {
		Role       sdk.Role       `json:"role"`
		Content    string         `json:"content,omitempty"`
		Reasoning  string         `json:"reasoning,omitempty"`
		ToolCalls  []sdk.ToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	body := struct {
		Tools    []tool    `json:"tools"`
		Messages []message `json:"messages"`
	}{}
	for _, d := range defs {
		body.Tools = append(body.Tools, tool{d.Name, d.Description, d.Parameters})
	}
	for _, m := range msgs {
		body.Messages = append(body.Messages, message{m.Role, m.Content, m.Reasoning, m.ToolCalls, m.ToolCallID})
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil
	}
	return b
}

// sharedPrefix counts the leading bytes a and b have in common.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// estimator turns prompt bytes into tokens, calibrated by the prompt
// tokens the provider reports.
type estimator struct {
	bytesPerToken float64
}

func newEstimator() estimator { return estimator{bytesPerToken: 4} }

func (e *estimator) tokens(bytes int) int64 {
	return int64(float64(bytes)/e.bytesPerToken + 0.5)
}

// calibrate learns from a request of promptBytes that the provider counted
// as reported tokens.
func (e *estimator) calibrate(promptBytes int, reported int64) {
	if reported <= 0 || promptBytes <= 0 {
		return
	}
	observed := float64(promptBytes) / float64(reported)
	// Move halfway: one odd request does not swing the estimate.
	e.bytesPerToken = (e.bytesPerToken + observed) / 2
}
