package agent

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

// Compactor keeps a conversation under threshold × context window by
// replacing its oldest turns with a summary written by the summarizer's
// model (DESIGN §7).
type Compactor struct {
	Model         Model         // a client with at most one quick retry
	Bindings      []llm.Binding // the summarizer agent's models
	ContextWindow int64
	Threshold     float64 // default 0.8
	KeepRecent    int     // newest turns kept verbatim; default 6
	// Timeout bounds the summarizer's call, retry included (context
	// summary_timeout); when it runs out, the deterministic summary is
	// used. 0: DefaultSummaryTimeout.
	Timeout time.Duration
	// MaxIneffective is how many compactions in a row may leave the
	// estimate above the threshold before the run stops; default 3.
	MaxIneffective int

	ineffective int
}

// DefaultSummaryTimeout is the summarizer's deadline when the agent sets
// none: a summary is a short answer, and a hung summarizer must not hold
// the run for minutes.
const DefaultSummaryTimeout = 30 * time.Second

const summaryPrompt = `You compress the history of an agent's work so it can continue with less context.
Write a factual summary of the conversation excerpt you are given: the goals, what was done
(files read and written, commands run and their outcomes), what was learned, decisions taken,
and what remained open. Keep file paths, names, numbers and error messages exact. No preamble.`

// Maybe compacts msgs when their estimate exceeds the threshold. stop says
// the run must end: compaction no longer brings the context under it.
func (c *Compactor) Maybe(ctx context.Context, msgs []sdk.Message, rec Recorder, est *estimator, obs llm.Observer) ([]sdk.Message, bool) {
	threshold := c.Threshold
	if threshold <= 0 {
		threshold = 0.8
	}
	limit := int64(threshold * float64(c.ContextWindow))
	before := est.tokens(est.prompt(msgs, nil).size())
	if c.ContextWindow <= 0 || before <= limit {
		c.ineffective = 0
		return msgs, false
	}
	keep := c.KeepRecent
	if keep <= 0 {
		keep = 6
	}
	pinned, groups := split(msgs)
	out := msgs
	dropped := 0
	if len(groups) > keep {
		old := groups[:len(groups)-keep]
		var oldMsgs []sdk.Message
		for _, g := range old {
			oldMsgs = append(oldMsgs, g...)
		}
		summary, by := c.summarize(ctx, oldMsgs, obs)
		out = append([]sdk.Message(nil), pinned...)
		out = append(out, sdk.Message{Role: sdk.RoleUser, Content: fmt.Sprintf(
			"[Summary of %d earlier messages, written to save context]\n%s", len(oldMsgs), summary)})
		for _, g := range groups[len(groups)-keep:] {
			out = append(out, g...)
		}
		dropped = len(oldMsgs)
		after := est.tokens(est.prompt(out, nil).size())
		_ = rec.Record(context.WithoutCancel(ctx), event.ContextCompacted{
			TokensBefore: before, TokensAfter: after, DroppedMessages: dropped, Summarizer: by,
		})
		if after <= limit {
			c.ineffective = 0
			return out, false
		}
	}
	c.ineffective++
	maxIneffective := c.MaxIneffective
	if maxIneffective <= 0 {
		maxIneffective = 3
	}
	return out, c.ineffective >= maxIneffective
}

// withPinned returns msgs with the pinned head marked, for providers that
// place prompt-cache breakpoints after it. msgs is not modified.
func withPinned(msgs []sdk.Message) []sdk.Message {
	n := pinnedHead(msgs)
	if n == 0 {
		return msgs
	}
	out := append([]sdk.Message(nil), msgs...)
	for i := range n {
		out[i].Pinned = true
	}
	return out
}

// pinnedHead is the length of the pinned head (system prompt and task).
func pinnedHead(msgs []sdk.Message) int {
	i := 0
	for i < len(msgs) && msgs[i].Role == sdk.RoleSystem {
		i++
	}
	if i < len(msgs) && msgs[i].Role == sdk.RoleUser {
		i++
	}
	return i
}

// split separates the pinned head (system prompt and task) from the turns
// that follow. A turn is a user message, or an assistant message with the
// tool results that answer it: a call is never separated from its result.
func split(msgs []sdk.Message) (pinned []sdk.Message, groups [][]sdk.Message) {
	i := pinnedHead(msgs)
	pinned = msgs[:i]
	for _, m := range msgs[i:] {
		if m.Role == sdk.RoleTool && len(groups) > 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], m)
			continue
		}
		groups = append(groups, []sdk.Message{m})
	}
	return pinned, groups
}

// summarize asks the summarizer's model; when that fails it falls back to
// a deterministic extract, so the thread is never lost.
func (c *Compactor) summarize(ctx context.Context, msgs []sdk.Message, obs llm.Observer) (string, string) {
	if c.Model != nil && len(c.Bindings) > 0 {
		req := llm.Request{Bindings: c.Bindings, Messages: []sdk.Message{
			{Role: sdk.RoleSystem, Content: summaryPrompt},
			{Role: sdk.RoleUser, Content: transcript(msgs, 4000)},
		}}
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = DefaultSummaryTimeout
		}
		sctx, cancel := context.WithTimeout(ctx, timeout)
		msg, _, err := c.Model.Complete(sctx, req, obs)
		cancel()
		if err == nil && strings.TrimSpace(msg.Text) != "" {
			return strings.TrimSpace(msg.Text), "model"
		}
	}
	return transcript(msgs, 300), "fallback"
}

// transcript renders messages as text, each cut to at most max bytes.
func transcript(msgs []sdk.Message, max int) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case sdk.RoleAssistant:
			fmt.Fprintf(&b, "assistant: %s\n", cut(m.Content, max))
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "  called %s %s\n", tc.Name, cut(tc.Arguments, max))
			}
		case sdk.RoleTool:
			fmt.Fprintf(&b, "tool result (%s): %s\n", m.ToolCallID, cut(m.Content, max))
		default:
			fmt.Fprintf(&b, "%s: %s\n", m.Role, cut(m.Content, max))
		}
	}
	return b.String()
}

func cut(s string, max int) string {
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + fmt.Sprintf(" […%d bytes]", len(s)-i)
}
