package temporal

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Names registered with the worker.
const (
	WorkflowName        = "harness.Session"
	ActivityDefinitions = "harness.Definitions"
	ActivityModel       = "harness.Model"
	ActivityTool        = "harness.Tool"
	ActivityDecide      = "harness.Decide"
	ActivityRecord      = "harness.Record"
	ActivityPlace       = "harness.Place"
	ActivityFail        = "harness.Fail"
	// SignalDecision carries a person's Decision on a pending action.
	SignalDecision = "harness.decision"
)

// Input starts a session's workflow. Everything in it is plain data: the
// worker resolves the models and tools of the agent from its own
// configuration.
type Input struct {
	Session string
	Agent   string
	// Models are the agent's model names, fallback order (for events).
	Models    []string
	MaxTurns  int
	MaxTokens int64
	MaxUSD    float64
	// ReadOnly names the tools that only read: a call of one that was in
	// flight when its worker died runs again; any other is reported to
	// the model as interrupted.
	ReadOnly []string
	// Compaction is the agent's context settings; nil: never compact.
	Compaction *Compaction
	// ApprovalTimeout bounds each approval wait (permissions
	// approval_timeout); on expiry the action is denied. 0: no bound.
	ApprovalTimeout time.Duration
	// Messages is the conversation to continue (system prompt, task, ...).
	Messages []sdk.Message
	// Restore, for a resumed session, is what its earlier runs used and
	// left pending; nil for a new session.
	Restore *Restore `json:",omitempty"`
	// Timeouts of the activities; zero values take the defaults.
	Timeouts Timeouts
}

// Restore is the state of a resumed session (agent.Loop.Restore): its
// counters and its actions still pending, which the workflow waits for.
type Restore struct {
	Turns   int
	Tokens  int64
	CostUSD float64
	Pending []Pending
}

// Pending is an action awaiting its decision since Since (its approval
// timeout counts from then).
type Pending struct {
	ID    string
	Since time.Time
}

// Compaction is a Compactor's settings as data.
type Compaction struct {
	Summarizer     []string // the summarizer agent's model names
	ContextWindow  int64
	Threshold      float64
	KeepRecent     int
	Timeout        time.Duration
	MaxIneffective int
}

// Timeouts of the activities.
type Timeouts struct {
	// Model bounds one model request, the llm layer's retries included.
	Model time.Duration // default 10m
	// Tool bounds one tool call (the tool's own timeout is shorter).
	Tool time.Duration // default 2h
	// Heartbeat is how long a silent worker is given before its model
	// request or tool call is taken as lost.
	Heartbeat time.Duration // default 20s
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Model <= 0 {
		t.Model = 10 * time.Minute
	}
	if t.Tool <= 0 {
		t.Tool = 2 * time.Hour
	}
	if t.Heartbeat <= 0 {
		t.Heartbeat = 20 * time.Second
	}
	return t
}

// Result is how the workflow ended: the loop's outcome and totals.
type Result struct {
	Status string
	Limit  string
	Err    *sdk.Error
	Text   string
	Totals agent.Totals
}

// Decision is a person's answer to a pending action (SignalDecision).
type Decision struct {
	ActionID string
	Approve  bool
	Reason   string
	// TimedOut, on a denial, is the approval_timeout that ran out: nobody
	// decided (the action is stored as denied by unattended, by timeout).
	TimedOut time.Duration `json:",omitempty"`
}

// Event is a record the workflow buffered, committed by the next activity.
type Event struct {
	Type  string          `json:",omitempty"`
	Data  json.RawMessage `json:",omitempty"`
	Usage *session.Usage  `json:",omitempty"` // a Meter record instead of an event
}

// ModelInput is one model request.
type ModelInput struct {
	// Key names the activity in its workflow run; the workflow assigns it
	// and keeps it when the activity is retried or moved to another
	// worker, so what it writes once is keyed by it.
	Key             string
	Session         string
	Events          []Event
	Summarizer      bool // the compaction summarizer's request
	Messages        []sdk.Message
	Tools           []sdk.ToolDefinition
	PromptTokensEst int64
	// Budget is the session's budget before the request: the activity
	// checks it before each attempt and, with Limit, after every chunk
	// (max_output too), as the local loop does.
	Budget agent.Budget
	Limit  bool `json:",omitempty"`
}

// UsageReport is one attempt's usage, as the llm layer reported it.
type UsageReport struct {
	Binding llm.Binding
	Usage   sdk.Usage
	Cost    float64
}

// ModelOutput is the answer of a model request, or its failure.
type ModelOutput struct {
	Message llm.AssistantMessage
	Binding llm.Binding
	Usages  []UsageReport
	Err     *sdk.Error
	// Cut is the limit that stopped the response while it streamed; its
	// usage (estimated where the server sent none) is the last of Usages.
	Cut *llm.LimitError `json:",omitempty"`
}

// ToolInput is one tool call.
type ToolInput struct {
	// Key names the activity in its workflow run; the workflow assigns it
	// and keeps it when the activity is retried or moved to another
	// worker, so what it writes once is keyed by it.
	Key     string
	Session string
	Events  []Event
	Call    sdk.Call
}

// ToolOutput is a tools.Outcome as data, without the result's presentation
// (recorded in tool.result by the executor; the loop does not read it).
type ToolOutput struct {
	Call       sdk.Call
	Result     sdk.Result
	DurationMS int64
	StopRun    string
	Pending    bool
	ActionID   string
	RecordErr  string
}

// DecideInput applies a Decision on a pending action.
type DecideInput struct {
	// Key names the activity in its workflow run; the workflow assigns it
	// and keeps it when the activity is retried or moved to another
	// worker, so what it writes once is keyed by it.
	Key     string
	Session string
	Events  []Event
	Decision
}

// RecordInput commits buffered events; End, when set, ends the session.
type RecordInput struct {
	// Key names the activity in its workflow run; the workflow assigns it
	// and keeps it when the activity is retried or moved to another
	// worker, so what it writes once is keyed by it.
	Key     string
	Session string
	Events  []Event
	End     *Result
}

// Runtime is what a worker runs one session's activities with: the same
// model client, tool executor and approval pipeline as a local run.
type Runtime struct {
	Model    agent.Model
	Bindings []llm.Binding
	// SummarizerModel and Summarizer are the compaction summarizer's
	// client and models; nil: compaction uses its deterministic summary.
	SummarizerModel agent.Model
	Summarizer      []llm.Binding
	Tools           agent.Tools
	Recorder        agent.Recorder
	Meter           agent.Meter
	// Decide runs (approved) or denies a pending action and returns its
	// tool.result, recorded.
	Decide func(ctx context.Context, d Decision) (tools.ResultEvent, error)
	// End records session.ended with the result and closes the session.
	End func(ctx context.Context, r Result) error
}

// OnceRecorder commits a group of events and usage at most once per key;
// the worker's Recorder implements it (tools.StoreRecorder, over
// session.Store.AppendAllOnce). With it, a retried activity commits
// nothing an earlier attempt committed.
type OnceRecorder interface {
	RecordOnce(ctx context.Context, key string, ds []event.Data, usage []session.Usage) error
	// Claim records key and reports whether it was new.
	Claim(ctx context.Context, key string) (bool, error)
}

// FailInput ends a session whose workflow cannot go on.
type FailInput struct {
	Session string
	Message string // why: the workflow's error
}

// Failer is what a Sessions may also do: end a session as an error from
// the store alone (opening its runtime may be what failed), when it has
// not ended yet.
type Failer interface {
	Fail(ctx context.Context, session, message string) error
}

// Sessions gives a worker the Runtime of a session; it may cache them.
type Sessions interface {
	Runtime(ctx context.Context, session string) (*Runtime, error)
}
