package sdk

import (
	"slices"
	"sync"

	"github.com/harness-agent/harness/sdk/proto/providerv1"
)

// messageCache converts the messages of Stream requests, reusing the
// conversions of the previous request's messages that are unchanged
// (compared by position: a conversation mostly grows at its end), so a
// turn of a long session converts only its new messages. The converted
// messages are shared between requests and never modified.
type messageCache struct {
	mu   sync.Mutex
	msgs []Message // what pms convert, their slices copied
	pms  []*providerv1.Message
}

// convert returns msgs as protocol messages.
func (c *messageCache) convert(msgs []Message) []*providerv1.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.msgs) > len(msgs) {
		c.msgs, c.pms = c.msgs[:len(msgs)], c.pms[:len(msgs)]
	}
	for i, m := range msgs {
		if i < len(c.msgs) && sameMessage(c.msgs[i], m) {
			continue
		}
		pm := messageToProto(m)
		m.ToolCalls, m.ReasoningBlocks = slices.Clone(m.ToolCalls), slices.Clone(m.ReasoningBlocks)
		if i < len(c.msgs) {
			c.msgs[i], c.pms[i] = m, pm
		} else {
			c.msgs, c.pms = append(c.msgs, m), append(c.pms, pm)
		}
	}
	return slices.Clone(c.pms)
}

// sameMessage says whether a and b are equal in every field.
func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Reasoning == b.Reasoning && a.ToolCallID == b.ToolCallID &&
		a.Pinned == b.Pinned && a.IsError == b.IsError &&
		slices.Equal(a.ToolCalls, b.ToolCalls) && slices.Equal(a.ReasoningBlocks, b.ReasoningBlocks)
}
