package agent

import (
	"fmt"
	"strings"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// Resumed is a conversation rebuilt from a session's events.
type Resumed struct {
	// Messages is the conversation after the system prompt: the task, the
	// user messages, every complete turn, and a note per action decided
	// since its call (approved: its result; denied: the denial).
	Messages []sdk.Message
	Turns    int
	Calls    []sdk.Call // every tool call made, for the repeated-call guard
}

// Rebuild rebuilds the conversation of a session from its events
// (session.started's task, user.message, assistant.message, tool.result),
// never from chunks. A turn whose tool calls did not all get a result (the
// run was killed in the middle of it) is dropped: the conversation goes on
// from the last complete turn. A second tool.result for a call, recorded
// when a person approved or denied its action after the run, is added at
// the end as a note, so the earlier requests stay a byte-identical prefix.
func Rebuild(events []session.Event) (Resumed, error) {
	var r Resumed
	results := map[string]event.ToolResult{} // first result per call
	var late []event.ToolResult              // results of actions decided later
	var msgs []sdk.Message
	var open []int // indexes into msgs of assistant messages, for completeness

	for _, ev := range events {
		switch ev.Type {
		case event.TypeSessionStarted, event.TypeUserMessage, event.TypeAssistantMessage, event.TypeTurnInterrupted, event.TypeToolResult:
		default:
			continue // not part of the conversation
		}
		data, err := event.Decode(ev)
		if err != nil {
			return r, err
		}
		switch d := data.(type) {
		case event.SessionStarted:
			if d.Task != "" {
				msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Content: d.Task})
			}
		case event.UserMessage:
			msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Content: d.Text})
		case event.AssistantMessage:
			m := sdk.Message{Role: sdk.RoleAssistant, Content: d.Content, Reasoning: d.Reasoning, ReasoningBlocks: d.ReasoningBlocks}
			for _, tc := range d.ToolCalls {
				m.ToolCalls = append(m.ToolCalls, sdk.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments)})
				r.Calls = append(r.Calls, sdk.Call{ID: tc.ID, Tool: tc.Name, Arguments: tc.Arguments})
			}
			msgs = append(msgs, m)
			open = append(open, len(msgs)-1)
			r.Turns++
		case event.TurnInterrupted:
			msgs = append(msgs, InterruptedMessage(d.Partial))
			if d.Request {
				r.Turns++
			}
		case event.ToolResult:
			if _, seen := results[d.CallID]; seen {
				late = append(late, d)
				continue
			}
			results[d.CallID] = d
		}
	}

	// Drop a trailing turn whose calls are not all answered.
	if n := len(open); n > 0 {
		last := msgs[open[n-1]]
		for _, tc := range last.ToolCalls {
			if _, ok := results[tc.ID]; !ok {
				msgs = msgs[:open[n-1]]
				r.Turns--
				r.Calls = r.Calls[:len(r.Calls)-len(last.ToolCalls)]
				break
			}
		}
	}
	// Put each turn's results right after it, in call order.
	for _, m := range msgs {
		r.Messages = append(r.Messages, m)
		for _, tc := range m.ToolCalls {
			res := results[tc.ID]
			r.Messages = append(r.Messages, sdk.Message{Role: sdk.RoleTool, ToolCallID: tc.ID, Content: resultContent(res), IsError: res.Error != nil})
		}
	}
	for _, d := range late {
		r.Messages = append(r.Messages, sdk.Message{Role: sdk.RoleUser, Content: LateNote(d)})
	}
	return r, nil
}

func resultContent(d event.ToolResult) string {
	res := sdk.Result{Content: d.Content}
	if d.Error != nil {
		res.Err = &sdk.Error{Kind: d.Error.Kind, Message: d.Error.Message}
	}
	return ToolContent(res)
}

// LateNote is the message that tells the model an action was decided
// after its call: approved (its result) or denied.
func LateNote(d event.ToolResult) string {
	what := "was approved and ran"
	if d.Error != nil && d.Error.Kind == sdk.KindDenied {
		what = "was denied and did not run" // the result says by whom and why
	}
	return fmt.Sprintf("[Update] Your %s call %s (action %s) %s. Result:\n%s", d.Tool, d.CallID, d.ActionID, what, resultContent(d))
}

// InterruptedMessage is what the conversation keeps of an interrupted
// turn: the partial answer, marked, so the model knows it was cut off.
func InterruptedMessage(partial string) sdk.Message {
	text := "[interrupted by the user]"
	if strings.TrimSpace(partial) != "" {
		text = partial + "\n\n" + text
	}
	return sdk.Message{Role: sdk.RoleAssistant, Content: text}
}
