package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

func TestPhaseOrder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seq []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seq = append(seq, s)
	}
	all := []string{tools.PhaseFind, tools.PhasePrepare, sdk.PhasePreExecute, sdk.PhaseApprove,
		tools.PhaseExecute, sdk.PhasePostExecute, tools.PhaseNormalize, sdk.PhaseResult}
	trace := tools.Hook{Name: "trace", Phases: all, Handle: func(_ context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error) {
		note(ev.Phase)
		return sdk.HookVerdict{}, nil
	}}
	src := sourceFunc(func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
		note("source")
		return sdk.Result{Content: "done"}, nil
	})
	reg := newRegistry(t, tool("work", src))
	tests := []struct {
		name string
		call sdk.Call
		want []string
	}{
		{"executed", call("c1", "work", `{}`), []string{"tools/find", "tools/prepare", "tools/pre-execute", "tools/approve",
			"tools/execute", "source", "tools/post-execute", "tools/normalize", "tools/result"}},
		{"not found", call("c2", "nope", `{}`), []string{"tools/normalize", "tools/result"}},
		{"invalid", call("c3", "work", `[`), []string{"tools/find", "tools/normalize", "tools/result"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			seq = nil
			mu.Unlock()
			ex := newExecutor(t, reg, tools.Options{Hooks: []tools.Hook{trace}, Approver: direct{withHooks: true}})
			ex.Run(context.Background(), tt.call)
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(seq, tt.want) {
				t.Errorf("phases\n got %v\nwant %v", seq, tt.want)
			}
		})
	}
}

// The registry's cap is a safety net that says exactly what it cut: the
// head and tail it keeps are the source's own bytes, the note's numbers
// add up, and the source's own notes in the cut part survive.
func TestOutputCap(t *testing.T) {
	t.Parallel()
	var lines strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&lines, "line %d\n", i)
		if i == 10_000 {
			lines.WriteString("[… 999 bytes omitted …]\n") // the source's own marker, in the middle
		}
	}
	tests := []struct {
		name      string
		content   string
		cap       int
		wantNotes []string // source notes the net must carry over
	}{
		{"under the cap", strings.Repeat("x", 100), 1000, nil},
		{"whole lines with the source's marker", lines.String(), 32 << 10, []string{"[… 999 bytes omitted …]"}},
		{"one long line", strings.Repeat("a", 60_000) + strings.Repeat("b", 60_000), 32 << 10, nil},
		{"rune boundaries", strings.Repeat("é", 1000), 101, nil},
	}
	marker := regexp.MustCompile(`(?m)^\[… the harness cut (\d+) bytes \((\d+) lines\) of big's output here: one tool result holds at most \d+ KiB …\]\n`)
	check := func(t *testing.T, content, got string, maxBytes int, wantNotes []string) {
		t.Helper()
		if len(content) <= maxBytes {
			if got != content {
				t.Errorf("content under the cap changed")
			}
			return
		}
		loc := marker.FindStringSubmatchIndex(got)
		if loc == nil {
			t.Fatalf("no cut note in %.200q", got)
		}
		head, rest := got[:loc[0]], got[loc[1]:]
		for _, n := range wantNotes {
			if !strings.HasPrefix(rest, n+"\n") {
				t.Fatalf("source note %q not kept after the cut note: %.100q", n, rest)
			}
			rest = rest[len(n)+1:]
		}
		tail := rest
		headBytes := strings.TrimSuffix(head, "\n")
		if !strings.HasPrefix(content, head) && !strings.HasPrefix(content, headBytes) {
			t.Fatalf("head is not the source's first bytes")
		}
		if !strings.HasPrefix(content, head) {
			head = headBytes // the net added a newline before its note
		}
		if !strings.HasSuffix(content, tail) {
			t.Fatalf("tail is not the source's last bytes")
		}
		cut := content[len(head) : len(content)-len(tail)]
		cutBytes, _ := strconv.Atoi(got[loc[2]:loc[3]])
		cutLines, _ := strconv.Atoi(got[loc[4]:loc[5]])
		if cutBytes != len(cut) || cutLines != strings.Count(cut, "\n") {
			t.Errorf("note says %d bytes, %d lines; cut %d bytes, %d lines", cutBytes, cutLines, len(cut), strings.Count(cut, "\n"))
		}
		if len(head)+len(tail) > maxBytes || !utf8.ValidString(head) || !utf8.ValidString(tail) {
			t.Errorf("kept %d+%d bytes of a %d cap (valid UTF-8: %v)", len(head), len(tail), maxBytes, utf8.ValidString(head+tail))
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := sourceFunc(func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
				return sdk.Result{Content: tt.content, Presentation: sdk.TerminalView{Command: "x", Output: tt.content}}, nil
			})
			ex := newExecutor(t, newRegistry(t, tool("big", src)), tools.Options{OutputCap: tt.cap})
			o := ex.Run(context.Background(), call("c", "big", `{}`))
			check(t, tt.content, o.Result.Content, tt.cap, tt.wantNotes)
			check(t, tt.content, o.Result.Presentation.(sdk.TerminalView).Output, tt.cap, tt.wantNotes)
		})
	}
}

func TestRepeatedCalls(t *testing.T) {
	t.Parallel()
	src, runs := counting()
	ex := newExecutor(t, newRegistry(t, tool("work", src)), tools.Options{})
	ctx := context.Background()
	for i := 1; i <= 11; i++ {
		// Key order and spacing do not make a call different.
		args := `{"a":1,"b":[1,2]}`
		if i%2 == 0 {
			args = `{ "b": [1, 2], "a": 1 }`
		}
		o := ex.Run(ctx, call(fmt.Sprint("c", i), "work", args))
		switch {
		case i <= 2 && o.Result.Err != nil:
			t.Fatalf("call %d: %v", i, o.Result.Err)
		case i >= 3 && errKind(o) != sdk.KindRepeatedCall:
			t.Fatalf("call %d: kind %q, want repeated_call", i, errKind(o))
		case i >= 3 && i < 10 && (o.StopRun != "" || !strings.Contains(o.Result.Err.Message, fmt.Sprintf("%d times", i-1))):
			t.Fatalf("call %d: StopRun %q, message %q", i, o.StopRun, o.Result.Err.Message)
		case i >= 10 && o.StopRun != tools.StopRepeatedCall:
			t.Fatalf("call %d: StopRun %q, want repeated_call", i, o.StopRun)
		}
	}
	if runs() != 2 {
		t.Errorf("executed %d times, want 2", runs())
	}
	if o := ex.Run(ctx, call("other", "work", `{"a":2}`)); o.Result.Err != nil {
		t.Errorf("different arguments are a different call: %v", o.Result.Err)
	}
}

func TestRepeatedCallsWithinOneTurn(t *testing.T) {
	t.Parallel()
	src, runs := counting()
	ex := newExecutor(t, newRegistry(t, tool("work", src)), tools.Options{RepeatLimit: 3, StopLimit: 5})
	var wg sync.WaitGroup
	outcomes := make([]tools.Outcome, 6)
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = ex.Run(context.Background(), call(fmt.Sprint("c", i), "work", `{"q":"same"}`))
		}()
	}
	wg.Wait()
	var repeated, stops int
	for _, o := range outcomes {
		if errKind(o) == sdk.KindRepeatedCall {
			repeated++
		}
		if o.StopRun != "" {
			stops++
		}
	}
	if runs() != 2 || repeated != 4 || stops != 2 {
		t.Errorf("executed %d, repeated %d, stops %d; want 2, 4, 2", runs(), repeated, stops)
	}
}

func TestCountPrior(t *testing.T) {
	t.Parallel()
	src, runs := counting()
	ex := newExecutor(t, newRegistry(t, tool("work", src)), tools.Options{})
	ex.CountPrior(call("old1", "work", `{"x":1}`), call("old2", "work", `{"x":1}`))
	if o := ex.Run(context.Background(), call("new", "work", `{"x":1}`)); errKind(o) != sdk.KindRepeatedCall || runs() != 0 {
		t.Errorf("a call made twice before the resume should be the 3rd: %+v", o.Result)
	}
}

func TestInProcessHooks(t *testing.T) {
	t.Parallel()
	verdict := func(d sdk.Decision, err error) tools.HookFunc {
		return func(context.Context, sdk.HookEvent) (sdk.HookVerdict, error) {
			return sdk.HookVerdict{Decision: d, Reason: "because"}, err
		}
	}
	slow := func(ctx context.Context, _ sdk.HookEvent) (sdk.HookVerdict, error) {
		<-ctx.Done()
		return sdk.HookVerdict{}, ctx.Err()
	}
	panics := func(context.Context, sdk.HookEvent) (sdk.HookVerdict, error) { panic("oops") }
	tests := []struct {
		name     string
		hook     tools.Hook
		wantKind sdk.ErrorKind
		want     string
	}{
		{"pre-execute deny", tools.Hook{Name: "p", Phases: []string{sdk.PhasePreExecute}, Handle: verdict(sdk.DecisionDeny, nil)}, sdk.KindDenied, `denied by hook "p" before it ran: because`},
		{"pre-execute error fails closed", tools.Hook{Name: "p", Phases: []string{sdk.PhasePreExecute}, Handle: verdict(sdk.DecisionAllow, errors.New("broken"))}, sdk.KindDenied, "broken"},
		{"pre-execute timeout fails closed", tools.Hook{Name: "p", Phases: []string{sdk.PhasePreExecute}, Timeout: 20 * time.Millisecond, Handle: slow}, sdk.KindDenied, "did not answer within 20ms"},
		{"pre-execute panic fails closed", tools.Hook{Name: "p", Phases: []string{sdk.PhasePreExecute}, Handle: panics}, sdk.KindDenied, "panicked"},
		{"approve deny", tools.Hook{Name: "a", Phases: []string{sdk.PhaseApprove}, Handle: verdict(sdk.DecisionDeny, nil)}, sdk.KindDenied, "because"},
		{"post-execute error ignored", tools.Hook{Name: "o", Phases: []string{sdk.PhasePostExecute, sdk.PhaseResult}, Handle: verdict(sdk.DecisionDeny, errors.New("broken"))}, "", ""},
		{"result timeout ignored", tools.Hook{Name: "o", Phases: []string{sdk.PhaseResult}, Timeout: 10 * time.Millisecond, Handle: slow}, "", ""},
		{"observer panic ignored", tools.Hook{Name: "o", Phases: []string{tools.PhaseFind, tools.PhaseNormalize}, Handle: panics}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, runs := counting()
			ex := newExecutor(t, newRegistry(t, tool("work", src)), tools.Options{Hooks: []tools.Hook{tt.hook}, Approver: direct{withHooks: true}})
			o := ex.Run(context.Background(), call("c", "work", `{}`))
			if errKind(o) != tt.wantKind {
				t.Fatalf("kind %q, want %q (%+v)", errKind(o), tt.wantKind, o.Result)
			}
			if tt.wantKind != "" && (!strings.Contains(o.Result.Err.Message, tt.want) || runs() != 0) {
				t.Errorf("message %q (want %q), ran %d times", o.Result.Err.Message, tt.want, runs())
			}
			if tt.wantKind == "" && runs() != 1 {
				t.Errorf("ran %d times, want 1", runs())
			}
		})
	}
}

func TestDeadlineAndCancel(t *testing.T) {
	t.Parallel()
	block := sourceFunc(func(ctx context.Context, _ sdk.Call, _ sdk.Progress) (sdk.Result, error) {
		<-ctx.Done()
		return sdk.Result{}, ctx.Err()
	})
	slow := tool("slow", block)
	slow.Timeout = func(json.RawMessage) time.Duration { return 30 * time.Millisecond }
	panicky := tool("panicky", sourceFunc(func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) { panic("bad tool") }))
	weird := tool("weird", sourceFunc(func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
		return sdk.Result{Err: &sdk.Error{Kind: "made_up", Message: "odd"}}, nil
	}))
	// The canceled case's context is canceled once its call is running.
	canceled, cancel := context.WithCancel(context.Background())
	cancelRunning := sourceFunc(func(ctx context.Context, call sdk.Call, p sdk.Progress) (sdk.Result, error) {
		cancel()
		return block(ctx, call, p)
	})
	reg := newRegistry(t, slow, tool("block", cancelRunning), panicky, weird)
	tests := []struct {
		name     string
		ctx      context.Context
		tool     string
		wantKind sdk.ErrorKind
		want     string
	}{
		{"deadline", context.Background(), "slow", sdk.KindTimeout, "slow did not finish within its deadline of 30ms"},
		{"canceled", canceled, "block", sdk.KindCanceled, ""},
		{"panic", context.Background(), "panicky", sdk.KindInternal, "panicky panicked: bad tool"},
		{"unknown kind", context.Background(), "weird", sdk.KindInternal, `odd (error kind "made_up" is unknown)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &memRecorder{}
			ex := newExecutor(t, reg, tools.Options{Recorder: rec})
			o := ex.Run(tt.ctx, call("c", tt.tool, `{}`))
			if errKind(o) != tt.wantKind || !strings.Contains(o.Result.Err.Message, tt.want) {
				t.Errorf("got %+v, want %s %q", o.Result.Err, tt.wantKind, tt.want)
			}
			if len(rec.ofType(event.TypeToolResult)) != 1 {
				t.Error("a failed or canceled call still records its tool.result")
			}
		})
	}
}

func TestEvents(t *testing.T) {
	t.Parallel()
	src := sourceFunc(func(_ context.Context, _ sdk.Call, progress sdk.Progress) (sdk.Result, error) {
		progress("stdout", "line 1\n")
		progress("stderr", "warn\n")
		return sdk.Result{Content: "exit 0", Presentation: sdk.TerminalView{Command: "make", ExitCode: 0, Output: "line 1\nwarn\n"}}, nil
	})
	rec := &memRecorder{}
	ex := newExecutor(t, newRegistry(t, tool("terminal", src)), tools.Options{Recorder: rec})
	ex.Run(context.Background(), call("call_1", "terminal", `{"command":"make"}`))
	ex.Run(context.Background(), call("call_2", "nope", `not json`))

	var types []string
	for _, e := range rec.events {
		types = append(types, e.Type)
	}
	want := []string{"tool.call", "tool.progress", "tool.progress", "tool.result", "tool.call", "tool.result"}
	if !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	check := func(got json.RawMessage, want string) {
		t.Helper()
		if string(got) != want {
			t.Errorf("event\n got %s\nwant %s", got, want)
		}
	}
	check(rec.events[0].Data, `{"call_id":"call_1","tool":"terminal","arguments":{"command":"make"}}`)
	check(rec.events[1].Data, `{"call_id":"call_1","stream":"stdout","text":"line 1\n"}`)
	var res tools.ResultEvent
	if err := json.Unmarshal(rec.events[3].Data, &res); err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Content != "exit 0" || res.Error != nil ||
		string(res.Presentation) != `{"kind":"terminal","command":"make","exit_code":0,"output":"line 1\nwarn\n"}` {
		t.Errorf("tool.result = %s", rec.events[3].Data)
	}
	check(rec.events[4].Data, `{"call_id":"call_2","tool":"nope","arguments":"not json"}`)
	res = tools.ResultEvent{}
	if err := json.Unmarshal(rec.events[5].Data, &res); err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Error == nil || res.Error.Kind != sdk.KindToolNotFound || res.Presentation != nil {
		t.Errorf("tool.result = %s", rec.events[5].Data)
	}
}

func TestMarshalPresentation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		view sdk.Presentation
		want string
	}{
		{nil, ``},
		{sdk.TextView{Text: "hi"}, `{"kind":"text","text":"hi"}`},
		{sdk.DiffView{Path: "a.go", Unified: "@@"}, `{"kind":"diff","path":"a.go","unified":"@@"}`},
		{sdk.SearchView{Query: "q", Total: 1, Hits: []sdk.SearchHit{{Path: "a", Line: 2, Text: "x"}}}, `{"kind":"search","query":"q","total":1,"hits":[{"path":"a","line":2,"text":"x"}]}`},
		{sdk.FileView{Path: "a", StartLine: 1, EndLine: 9}, `{"kind":"file","path":"a","start_line":1,"end_line":9}`},
	}
	for _, tt := range tests {
		if got := string(tools.MarshalPresentation(tt.view)); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}

type failingRecorder struct{}

func (failingRecorder) Record(context.Context, event.Data) error { return errors.New("disk full") }

func TestRecordFailureIsReported(t *testing.T) {
	t.Parallel()
	src, _ := counting()
	ex := newExecutor(t, newRegistry(t, tool("work", src)), tools.Options{Recorder: failingRecorder{}})
	o := ex.Run(context.Background(), call("c", "work", `{}`))
	if o.RecordErr == nil || !strings.Contains(o.RecordErr.Error(), "disk full") {
		t.Errorf("RecordErr = %v", o.RecordErr)
	}
}
