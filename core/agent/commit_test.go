package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/harness-agent/harness/internal/testkit"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// usageModel answers each request with the next message, streaming its
// text and reporting usage as a provider does.
type usageModel struct{ answers []llm.AssistantMessage }

func (m *usageModel) Complete(_ context.Context, _ llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	a := m.answers[0]
	m.answers = m.answers[1:]
	if a.Text != "" {
		obs.OnChunk(0, "text", a.Text)
	}
	a.Usage = sdk.Usage{PromptTokens: 100, CompletionTokens: 10}
	obs.OnUsage(llm.Binding{Name: "m"}, a.Usage, 0.001)
	return a, llm.Binding{Name: "m"}, nil
}

type allowAll struct{}

func (allowAll) Approve(context.Context, tools.ApprovalRequest) tools.Approval {
	return tools.Approval{Run: true}
}
func (allowAll) Executed(context.Context, string, tools.ResultEvent) error { return nil }

type echoSource struct{}

func (echoSource) Execute(_ context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
	return sdk.Result{Content: "ran " + call.ID}, nil
}

// commitSource runs a call as echoSource does once it checks what the
// store holds: for a writing call (it runs after the calls before it) its
// tool.call and every earlier call's tool.result. A read-only call acts on
// nothing, so it runs before its tool.call is committed: a read that runs
// alone (lone) checks that its tool.call is not in the store yet (reads
// that run together may see the first one's commit).
type commitSource struct {
	t       *testing.T
	store   *session.Store
	session string
	lone    bool
}

func (s commitSource) Execute(ctx context.Context, call sdk.Call, p sdk.Progress) (sdk.Result, error) {
	evs, err := s.store.Events(ctx, s.session, 0)
	if err != nil {
		s.t.Error(err)
	}
	var have []string
	for _, ev := range evs {
		var d struct {
			CallID string `json:"call_id"`
		}
		_ = json.Unmarshal(ev.Data, &d)
		have = append(have, ev.Type+" "+d.CallID)
	}
	var want []string
	if strings.HasPrefix(call.Tool, "write_") {
		want = append(want, event.TypeToolCall+" "+call.ID)
		n, _ := strconv.Atoi(strings.TrimPrefix(call.ID, "c"))
		for i := 1; i < n; i++ {
			want = append(want, fmt.Sprintf("%s c%d", event.TypeToolResult, i))
		}
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			s.t.Errorf("%s ran before %s was committed (store: %v)", call.ID, w, have)
		}
	}
	if s.lone && strings.HasPrefix(call.Tool, "read_") && slices.Contains(have, event.TypeToolCall+" "+call.ID) {
		s.t.Errorf("the read %s ran after its tool.call was committed: a commit ran beside it (store: %v)", call.ID, have)
	}
	return echoSource{}.Execute(ctx, call, p)
}

// openSession opens a SQLite store in a temporary folder, closed when the
// test ends, and creates a session in it.
func openSession(t *testing.T) (*session.Store, session.SessionInfo) {
	t.Helper()
	store, err := session.Open(filepath.Join(t.TempDir(), session.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	info, err := store.CreateSession(context.Background(), session.SessionInfo{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	return store, info
}

// commitRun runs a session whose first turn calls the tools of calls
// (read_* tools are read-only) and whose second answers, on a real SQLite
// store through the run's recorder. It returns the stored events, each
// transaction's event types, and the events shown, in order.
func commitRun(t *testing.T, calls ...string) (stored []session.Event, commits [][]string, shown []string) {
	t.Helper()
	ctx := context.Background()
	store, info := openSession(t)
	reg := tools.NewRegistry()
	for _, name := range []string{"read_a", "write_a"} {
		spec := sdk.ToolSpec{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Capabilities: sdk.Capabilities{Writes: strings.HasPrefix(name, "write_")}}
		if err := reg.Add(tools.Tool{Spec: spec, Origin: tools.OriginBuiltin, Owner: "t", Source: commitSource{t, store, info.ID, len(calls) == 1}}); err != nil {
			t.Fatal(err)
		}
	}
	rec := tools.SessionRecorder(store, info.ID)
	rec.Sink = func(ev session.Event) {
		shown = append(shown, ev.Type)
		evs, err := store.Events(ctx, info.ID, 0)
		if err != nil || int64(len(evs)) < ev.Seq {
			t.Errorf("event %d (%s) shown before it was committed", ev.Seq, ev.Type)
		}
	}
	// The grace is longer than any test: a read's tool.call is committed
	// with its result (TestSlowReadShowsItsCall has it up during a read).
	ex, err := tools.NewExecutor(reg, tools.Options{Session: info.ID, Whitelist: []string{"read_a", "write_a"}, Approver: allowAll{}, Recorder: rec,
		QuietGrace: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var tcs []sdk.ToolCall
	for i, name := range calls {
		tcs = append(tcs, sdk.ToolCall{ID: fmt.Sprintf("c%d", i+1), Name: name, Arguments: `{}`})
	}
	model := &usageModel{answers: []llm.AssistantMessage{{ToolCalls: tcs, FinishReason: "tool_calls"}, {Text: "done", FinishReason: "stop"}}}
	// The deferred events wait longer than any test for the commit after them.
	cfg := Config{Session: info.ID, ReadOnly: func(name string) bool { return strings.HasPrefix(name, "read_") }, DeferWait: time.Hour}
	_, out := New(cfg, model, ex, rec, rec).Run(ctx, []sdk.Message{{Role: sdk.RoleUser, Content: "go"}})
	if out.Status != StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	if stored, err = store.Events(ctx, info.ID, 0); err != nil {
		t.Fatal(err)
	}
	// The events of one transaction share its time; two transactions never do.
	for i, ev := range stored {
		if i == 0 || !ev.Time.Equal(stored[i-1].Time) {
			commits = append(commits, nil)
		}
		commits[len(commits)-1] = append(commits[len(commits)-1], ev.Type)
	}
	u, err := store.UsageTotals(ctx, info.ID)
	if err != nil || u.PromptTokens != 200 {
		t.Errorf("usage %+v (%v), want both requests metered", u, err)
	}
	return stored, commits, shown
}

// A turn's events are committed in a few transactions, not one each: the
// request's closing events with the tool.call of the calls that run first;
// the events nothing acts on after (llm.request, the deltas, tool.result)
// deferred, grouped with whatever is queued before their commit starts, at
// the latest with the next call's tool.call. A reading turn is one
// transaction (its read runs before its tool.call is committed, and the
// request's llm.request waits for it); an answer is one. How the
// background groups the rest depends on timing; what does not: the order
// is the one events had when each was committed on its own, every event is
// shown only once committed, in store order, every tool runs only once its
// tool.call and every earlier call's result are committed (see
// commitSource), and there are at most as many transactions as when only
// the closing group and each tool.call waited.
func TestTurnCommitsAreGrouped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		calls []string
		order string
		// together are the runs of events that share one transaction.
		together []string
		most     int
	}{
		{"one read", []string{"read_a"}, "llm.request llm.usage assistant.message tool.call tool.result " +
			"llm.request assistant.chunk llm.usage assistant.message agent.response",
			[]string{"llm.request llm.usage assistant.message tool.call tool.result", "assistant.chunk llm.usage assistant.message agent.response"}, 2},
		{"one call", []string{"write_a"}, "llm.request llm.usage assistant.message tool.call tool.result " +
			"llm.request assistant.chunk llm.usage assistant.message agent.response",
			[]string{"llm.request llm.usage assistant.message tool.call", "assistant.chunk llm.usage assistant.message agent.response"}, 3},
		{"calls one after another", []string{"write_a", "write_a"}, "llm.request llm.usage assistant.message tool.call " +
			"tool.result tool.call tool.result llm.request assistant.chunk llm.usage assistant.message agent.response",
			[]string{"llm.request llm.usage assistant.message tool.call", "assistant.chunk llm.usage assistant.message agent.response"}, 4},
		{"a parallel batch, then a write", []string{"read_a", "read_a", "write_a"}, "llm.request llm.usage assistant.message tool.call tool.call " +
			"tool.result tool.result tool.call tool.result llm.request assistant.chunk llm.usage assistant.message agent.response",
			[]string{"llm.request llm.usage assistant.message tool.call tool.call", "assistant.chunk llm.usage assistant.message agent.response"}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stored, commits, shown := commitRun(t, tc.calls...)
			if len(commits) > tc.most {
				t.Errorf("%d transactions %v, want at most %d", len(commits), commits, tc.most)
			}
			for _, run := range tc.together {
				if !slices.ContainsFunc(commits, func(c []string) bool { return strings.Contains(strings.Join(c, " "), run) }) {
					t.Errorf("transactions %v: none holds %q", commits, run)
				}
			}
			var types []string
			for _, ev := range stored {
				types = append(types, ev.Type)
			}
			if !slices.Equal(types, shown) {
				t.Errorf("shown %v, stored %v", shown, types)
			}
			if got := strings.Join(types, " "); got != tc.order {
				t.Errorf("stored\n%s\nwant\n%s", got, tc.order)
			}
			// Results follow their calls, in the model's order for calls
			// that ran one after another.
			var ids []string
			for _, ev := range stored {
				if ev.Type == event.TypeToolCall || ev.Type == event.TypeToolResult {
					var d struct {
						CallID string `json:"call_id"`
					}
					_ = json.Unmarshal(ev.Data, &d)
					ids = append(ids, ev.Type+" "+d.CallID)
				}
			}
			if tc.name == "calls one after another" && strings.Join(ids, ",") != "tool.call c1,tool.result c1,tool.call c2,tool.result c2" {
				t.Errorf("call events %v", ids)
			}
		})
	}
}

// A read that cannot act on the world runs before its tool.call is
// committed; one still running when the executor's quiet grace is up has
// its tool.call (and the model's message before it) committed, and shown,
// while it runs: here the read waits until it sees its tool.call stored.
func TestSlowReadShowsItsCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, info := openSession(t)
	reg := tools.NewRegistry()
	spec := sdk.ToolSpec{Name: "read_a", InputSchema: json.RawMessage(`{"type":"object"}`), Capabilities: sdk.Capabilities{Reads: true}}
	if err := reg.Add(tools.Tool{Spec: spec, Origin: tools.OriginBuiltin, Owner: "t", Source: waitForCallSource{t, store, info.ID}}); err != nil {
		t.Fatal(err)
	}
	rec := tools.SessionRecorder(store, info.ID)
	var mu sync.Mutex
	var shown []string
	rec.Sink = func(ev session.Event) {
		mu.Lock()
		defer mu.Unlock()
		shown = append(shown, ev.Type)
	}
	ex, err := tools.NewExecutor(reg, tools.Options{Session: info.ID, Whitelist: []string{"read_a"}, Approver: allowAll{}, Recorder: rec,
		QuietGrace: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	model := &usageModel{answers: []llm.AssistantMessage{
		{ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "read_a", Arguments: `{}`}}, FinishReason: "tool_calls"},
		{Text: "done", FinishReason: "stop"}}}
	cfg := Config{Session: info.ID, ReadOnly: func(name string) bool { return strings.HasPrefix(name, "read_") }}
	if _, out := New(cfg, model, ex, rec, rec).Run(ctx, []sdk.Message{{Role: sdk.RoleUser, Content: "go"}}); out.Status != StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if i := slices.Index(shown, event.TypeToolCall); i < 0 || slices.Index(shown, event.TypeToolResult) < i {
		t.Errorf("shown %v, want the tool.call before its result", shown)
	}
}

// waitForCallSource runs a call once its tool.call is in the store.
type waitForCallSource struct {
	t       *testing.T
	store   *session.Store
	session string
}

func (s waitForCallSource) Execute(ctx context.Context, call sdk.Call, p sdk.Progress) (sdk.Result, error) {
	testkit.WaitFor(s.t, func() bool {
		evs, err := s.store.Events(ctx, s.session, 0)
		return err == nil && slices.ContainsFunc(evs, func(ev session.Event) bool { return ev.Type == event.TypeToolCall })
	}, "the slow read's tool.call committed while it runs")
	return echoSource{}.Execute(ctx, call, p)
}

// failingCompaction fails the commit of context.compacted, as a recorder
// does whose background commit failed while the compaction's waited.
type failingCompaction struct{ fakeRecorder }

func (f *failingCompaction) Record(ctx context.Context, d event.Data) error {
	if d.EventType() == event.TypeContextCompacted {
		return fmt.Errorf("store: disk I/O error")
	}
	return f.fakeRecorder.Record(ctx, d)
}

// A failed commit during compaction stops the run there: the Compactor
// does not return the error, the loop keeps it.
func TestCompactionCommitFailureStopsTheRun(t *testing.T) {
	t.Parallel()
	rec := &failingCompaction{}
	model := &usageModel{answers: []llm.AssistantMessage{{Text: "done", FinishReason: "stop"}}}
	cfg := Config{Session: "s", Compactor: &Compactor{ContextWindow: 10000, Threshold: 0.5, KeepRecent: 2}}
	_, out := New(cfg, model, noTools{}, rec, nil).Run(context.Background(), longHistory())
	if out.Status != StatusError || out.Err == nil || !strings.Contains(out.Err.Message, "disk I/O error") {
		t.Fatalf("outcome %+v, want the run failed with the commit's error", out)
	}
	if len(model.answers) != 1 {
		t.Errorf("the model was asked after the failed commit")
	}
}

// lazyRecorder commits nothing in the background: what the loop defers
// waits for the next commit the loop itself waits for.
type lazyRecorder struct{ *tools.StoreRecorder }

func (lazyRecorder) Background(context.Context)                      {}
func (lazyRecorder) BackgroundWithin(context.Context, time.Duration) {}
func (lazyRecorder) Release(context.Context)                         {}
func (lazyRecorder) ReleaseAfter(context.Context, time.Duration)     {}

// storedModel is usageModel that notes, at each request after the first,
// whether the previous turn's tool.result was in the store already.
type storedModel struct {
	usageModel
	store    *session.Store
	session  string
	requests int
	stored   []bool
}

func (m *storedModel) Complete(ctx context.Context, req llm.Request, obs llm.Observer) (llm.AssistantMessage, llm.Binding, error) {
	if m.requests++; m.requests > 1 {
		evs, err := m.store.Events(ctx, m.session, 0)
		if err != nil {
			return llm.AssistantMessage{}, llm.Binding{}, err
		}
		m.stored = append(m.stored, slices.ContainsFunc(evs, func(ev session.Event) bool { return ev.Type == event.TypeToolResult }))
	}
	return m.usageModel.Complete(ctx, req, obs)
}

// With llm/stream hooks (CommitBeforeRequest) a request waits until every
// earlier event is committed, since a hook plugin sees it; without, a
// request only reads the results and goes while their commit may still
// be under way (here it never runs on its own: lazyRecorder).
func TestCommitBeforeRequest(t *testing.T) {
	t.Parallel()
	for _, wait := range []bool{true, false} {
		t.Run(fmt.Sprintf("wait=%v", wait), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			store, info := openSession(t)
			reg := tools.NewRegistry()
			spec := sdk.ToolSpec{Name: "read_a", InputSchema: json.RawMessage(`{"type":"object"}`), Capabilities: sdk.Capabilities{Reads: true}}
			if err := reg.Add(tools.Tool{Spec: spec, Origin: tools.OriginBuiltin, Owner: "t", Source: echoSource{}}); err != nil {
				t.Fatal(err)
			}
			rec := lazyRecorder{tools.SessionRecorder(store, info.ID)}
			ex, err := tools.NewExecutor(reg, tools.Options{Session: info.ID, Whitelist: []string{"read_a"}, Approver: allowAll{}, Recorder: rec})
			if err != nil {
				t.Fatal(err)
			}
			model := &storedModel{store: store, session: info.ID, usageModel: usageModel{answers: []llm.AssistantMessage{
				{ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "read_a", Arguments: `{}`}}, FinishReason: "tool_calls"},
				{Text: "done", FinishReason: "stop"},
			}}}
			cfg := Config{Session: info.ID, ReadOnly: func(string) bool { return true }, CommitBeforeRequest: wait}
			_, out := New(cfg, model, ex, rec, rec).Run(ctx, []sdk.Message{{Role: sdk.RoleUser, Content: "go"}})
			if out.Status != StatusCompleted {
				t.Fatalf("outcome %+v", out)
			}
			if err := rec.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if want := []bool{wait}; !slices.Equal(model.stored, want) {
				t.Errorf("tool.result stored when the second request went: %v, want %v", model.stored, want)
			}
		})
	}
}
