package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// samples has every event type with every field set, so that omitempty
// fields are encoded too.
func samples() []Data {
	args := json.RawMessage(`{"path":"a.go"}`)
	return []Data{
		SessionStarted{Agent: "a", Config: "/c.hcl", Model: "m", Task: "do <it>", Workspace: "/w",
			Engine: &Engine{Address: "localhost:7233", Name: "temporal", TaskQueue: "harness"}},
		SessionResumed{Agent: "a", Messages: 3, Turns: 2, Engine: &Engine{Name: "temporal", Address: "127.0.0.1:7233", TaskQueue: "q"}},
		UserMessage{Text: "more"},
		TurnInterrupted{Partial: "so far", Request: true},
		LLMRequest{Fallback: 2, HookMetadata: map[string]string{"k": "v"}, Messages: 2, Model: "m", PromptBytes: 100, PromptTokensEst: 25, SharedPrefixBytes: 80, Turn: 1},
		AssistantChunk{Block: 1, Delta: "I'll", Kind: ChunkText},
		LLMRetry{Attempt: 1, DelayMS: 500, Kind: sdk.KindRateLimited},
		AssistantMessage{Content: "c", FinishReason: "tool_calls", Model: "m", Reasoning: "r",
			ReasoningBlocks: []sdk.ReasoningBlock{{Text: "t", Signature: "s", Redacted: true}},
			ToolCalls:       []Call{{Arguments: args, ID: "c1", Name: "read_file"}}, Turn: 1},
		LLMUsage{CacheHitTokens: 1, CacheMissTokens: 2, CacheWriteTokens: 3, CompletionTokens: 4, CostUSD: 0.0125,
			Estimated: true, Model: "m", PromptTokens: 6, ReasoningTokens: 7, Turn: 1},
		ToolCall{CallID: "c1", Tool: "read_file", Arguments: args},
		ToolProgress{CallID: "c1", Stream: StreamStdout, Text: "out"},
		ActionProposed{ActionID: "a1", CallID: "c1", Tool: "terminal", Kind: "terminal", Summary: "go test"},
		ActionDecided{ActionID: "a1", CallID: "c1", Decision: "approved", By: "user", Rule: "always", Remember: []string{"terminal:go test *"}},
		ToolResult{CallID: "c1", Tool: "terminal", OK: false, Content: "x", Error: &ErrorData{Kind: sdk.KindDenied, Message: "no"},
			Presentation: json.RawMessage(`{"kind":"text","text":"x"}`), DurationMS: 12, ActionID: "a1"},
		Note{Title: "t", Body: "b"},
		Decision{Title: "t", Options: []string{"a", "b"}, Chosen: "a", Rationale: "r"},
		Checklist{Title: "t", Items: []ChecklistItem{{Text: "x", Done: true}}},
		ContextCompacted{DroppedMessages: 4, Summarizer: SummarizerModel, TokensAfter: 10, TokensBefore: 100},
		LimitReached{CostUSD: 1.5, Limit: "max_turns", Tokens: 100, Turns: 3},
		AgentResponse{Refusal: true, Text: "done"},
		Error{Kind: sdk.KindInternal, Message: "boom"},
		SessionEnded{CostUSD: 0.5, PendingActions: 1, Status: "completed", Tokens: 10, Turns: 2},
	}
}

// structTyped are the payloads that were Go structs before this package
// (their field order is their declaration order); every other payload was
// a map[string]any, which encodes its keys sorted.
var structTyped = map[string]bool{
	TypeToolCall: true, TypeToolProgress: true, TypeToolResult: true, TypeActionProposed: true, TypeActionDecided: true,
	TypeArtifactNote: true, TypeArtifactDecision: true, TypeArtifactChecklist: true,
}

// appendedLater are the fields added to a map-era payload after this
// package replaced the maps: they come last, in declaration order, as the
// stream has had them since.
var appendedLater = map[string][]string{
	TypeSessionStarted: {"engine"},
}

// TestEncodingIsAsBefore proves the --json stream is byte-compatible with
// the map payloads the writers used to build: a struct's encoding equals
// the encoding of the same fields as a map (then the fields appended
// later).
func TestEncodingIsAsBefore(t *testing.T) {
	for _, d := range samples() {
		got, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("%s: %v", d.EventType(), err)
		}
		if structTyped[d.EventType()] {
			continue
		}
		// Top-level keys only: nested values such as sdk.ReasoningBlock
		// were structs inside the map.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("%s: %v", d.EventType(), err)
		}
		var later []byte
		for _, k := range appendedLater[d.EventType()] {
			if v, ok := m[k]; ok {
				key, _ := json.Marshal(k)
				later = append(append(append(append(later, ','), key...), ':'), v...)
				delete(m, k)
			}
		}
		want, _ := json.Marshal(m)
		want = append(append(want[:len(want)-1], later...), '}')
		if !bytes.Equal(got, want) {
			t.Errorf("%s encodes as\n%s\nbut the map payload encoded as\n%s\n(keep the fields in alphabetical order of their JSON names)", d.EventType(), got, want)
		}
	}
}

func TestAssistantMessageEncoding(t *testing.T) {
	// The calls were maps too: their keys are sorted.
	got, _ := json.Marshal(Call{Arguments: json.RawMessage(`{}`), ID: "c1", Name: "n"})
	if want := `{"arguments":{},"id":"c1","name":"n"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}

	// So was the engine of session.started.
	got, _ = json.Marshal(Engine{Address: "a:1", Name: "temporal", TaskQueue: "q"})
	want, _ := json.Marshal(map[string]any{"name": "temporal", "address": "a:1", "task_queue": "q"})
	if string(got) != string(want) {
		t.Errorf("engine: got %s, want %s", got, want)
	}

	got, _ = json.Marshal(AssistantMessage{Model: "m"})
	want = []byte(`{"content":"","finish_reason":"","model":"m","reasoning":"","tool_calls":[],"turn":0}`)
	if string(got) != string(want) {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestDecodeRoundTrips(t *testing.T) {
	all := All()
	s := samples()
	if len(s) != len(all) {
		t.Fatalf("samples has %d types, All %d", len(s), len(all))
	}
	for i, d := range s {
		if reflect.TypeOf(d) != reflect.TypeOf(all[i]) {
			t.Errorf("sample %d is %T, All has %T", i, d, all[i])
		}
		raw, _ := json.Marshal(d)
		got, err := Decode(session.Event{Seq: 1, Type: d.EventType(), Data: raw})
		if err != nil {
			t.Fatalf("%s: %v", d.EventType(), err)
		}
		if !reflect.DeepEqual(got, d) {
			t.Errorf("%s: decoded %#v, want %#v", d.EventType(), got, d)
		}
	}
}

func TestDecodeRejectsUnknownAndMalformed(t *testing.T) {
	if _, err := Decode(session.Event{Seq: 4, Type: "tool.calls", Data: json.RawMessage(`{}`)}); err == nil {
		t.Error("an unknown type decoded")
	}
	if _, err := Decode(session.Event{Seq: 5, Type: TypeToolCall, Data: json.RawMessage(`{"call_id":1}`)}); err == nil {
		t.Error("a call id that is a number decoded")
	}
	d, err := Decode(session.Event{Seq: 6, Type: TypeUserMessage})
	if err != nil || d != (UserMessage{}) {
		t.Errorf("empty data: %#v, %v", d, err)
	}
}

// eventOf is d as the store returns it, at seq.
func eventOf(t *testing.T, seq int64, d Data) session.Event {
	t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return session.Event{Seq: seq, Session: "s-1", Type: d.EventType(), Data: raw}
}

// Decode hands back an event's Value (a commit's own event) when it is
// data of the event's type, and decodes Data otherwise.
func TestDecodeTakesTheValueOfItsType(t *testing.T) {
	raw := json.RawMessage(`{"text":"stored"}`)
	given := AgentResponse{Text: "given"}
	got, err := Decode(session.Event{Seq: 1, Type: TypeAgentResponse, Data: raw, Value: given})
	if err != nil || got != Data(given) {
		t.Errorf("with a Value of its type: %#v (%v), want %#v", got, err, given)
	}
	for _, other := range []any{Note{Title: "given"}, "given", nil} {
		got, err := Decode(session.Event{Seq: 1, Type: TypeAgentResponse, Data: raw, Value: other})
		if err != nil || got != Data(AgentResponse{Text: "stored"}) {
			t.Errorf("with the Value %#v: %#v (%v), want what Data holds", other, got, err)
		}
	}
}
