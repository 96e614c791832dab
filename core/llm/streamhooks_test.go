package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/llm"
	"github.com/harness-agent/harness/sdk"
)

// requestRecorder also records each model request.
type requestRecorder struct{ recorder }

func (r *requestRecorder) OnRequest(info llm.RequestInfo) {
	r.lines = append(r.lines, fmt.Sprintf("request %s fallback %d meta %v", info.Binding.Name, info.Fallback, info.Metadata))
}

// hookLog keeps the events a stream hook saw.
type hookLog struct {
	mu     sync.Mutex
	events []sdk.HookEvent
}

func (l *hookLog) hook(name string, verdict func(sdk.HookEvent) (sdk.HookVerdict, error)) llm.StreamHook {
	return llm.StreamHook{Name: name, Timeout: time.Minute, Handle: func(_ context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error) {
		l.mu.Lock()
		l.events = append(l.events, ev)
		l.mu.Unlock()
		return verdict(ev)
	}}
}

func streamClient(t *testing.T, steps map[string][]step, hooks ...llm.StreamHook) (*llm.Client, map[string]*fakeStreamer) {
	streams := map[string]*fakeStreamer{}
	for p, s := range steps {
		streams[p] = &fakeStreamer{t: t, steps: s}
	}
	c := llm.NewClient(func(p string) (llm.Streamer, error) { return streams[p], nil },
		llm.Options{StreamHooks: hooks, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	return c, streams
}

func TestStreamHookVetoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		verdict func(sdk.HookEvent) (sdk.HookVerdict, error)
		want    string
	}{
		{"deny", func(sdk.HookEvent) (sdk.HookVerdict, error) {
			return sdk.HookVerdict{Decision: sdk.DecisionDeny, Reason: "over the team's quota"}, nil
		}, `llm/stream hook "quota" vetoed the request to model "flash": over the team's quota`},
		{"error", func(sdk.HookEvent) (sdk.HookVerdict, error) {
			return sdk.HookVerdict{}, errors.New("connection refused")
		}, `llm/stream hook "quota" failed, which vetoes the request to model "flash": connection refused`},
		{"panic", func(sdk.HookEvent) (sdk.HookVerdict, error) { panic("boom") },
			`llm/stream hook "quota" failed, which vetoes the request to model "flash": hook "quota" panicked: boom`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log hookLog
			client, streams := streamClient(t, map[string][]step{"p1": nil, "p2": nil}, log.hook("quota", tc.verdict))
			obs := &requestRecorder{}
			_, _, err := client.Complete(context.Background(), llm.Request{Bindings: []llm.Binding{flash, backup}, Session: "s1", Agent: "coder"}, obs)
			if sdk.KindOf(err) != sdk.KindDenied || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (kind %s), want kind denied with %q", err, sdk.KindOf(err), tc.want)
			}
			for p, s := range streams {
				if len(s.prepared)+len(s.streamed) != 0 {
					t.Errorf("provider %s was called (%d prepares, %d streams) after a veto", p, len(s.prepared), len(s.streamed))
				}
			}
			if len(obs.lines) != 0 {
				t.Errorf("observer saw %v, want nothing (no request was made, no fallback tried)", obs.lines)
			}
			if len(log.events) != 1 || log.events[0].Stage != sdk.StageBefore || log.events[0].SessionID != "s1" || log.events[0].Agent != "coder" {
				t.Errorf("hook saw %+v, want one before event of session s1", log.events)
			}
		})
	}
}

func TestStreamHookTimesOut(t *testing.T) {
	t.Parallel()
	slow := llm.StreamHook{Name: "slow", Timeout: time.Millisecond, Handle: func(ctx context.Context, _ sdk.HookEvent) (sdk.HookVerdict, error) {
		<-ctx.Done()
		return sdk.HookVerdict{}, ctx.Err()
	}}
	client, streams := streamClient(t, map[string][]step{"p1": nil}, slow)
	_, _, err := client.Complete(context.Background(), llm.Request{Bindings: []llm.Binding{flash}}, nil)
	if sdk.KindOf(err) != sdk.KindDenied || !strings.Contains(err.Error(), "did not answer within 1ms") {
		t.Fatalf("error %v, want a veto naming the timeout", err)
	}
	if n := len(streams["p1"].streamed); n != 0 {
		t.Fatalf("%d streams after a timed-out hook, want 0", n)
	}
}

func TestStreamHookObservesEachRequest(t *testing.T) {
	t.Parallel()
	var log hookLog
	observer := log.hook("meter", func(ev sdk.HookEvent) (sdk.HookVerdict, error) {
		if ev.Stage == sdk.StageBefore {
			return sdk.HookVerdict{Decision: sdk.DecisionAllow, Metadata: map[string]string{"team": "research"}}, nil
		}
		return sdk.HookVerdict{Decision: sdk.DecisionDeny}, errors.New("ignored after the request")
	})
	client, _ := streamClient(t, map[string][]step{
		"p1": {fail(sdk.KindRateLimited, 0), fail(sdk.KindRateLimited, 0), fail(sdk.KindRateLimited, 0), fail(sdk.KindRateLimited, 0)},
		"p2": {answer("hello")},
	}, observer)
	obs := &requestRecorder{}
	msg, b, err := client.Complete(context.Background(), llm.Request{Bindings: []llm.Binding{flash, backup}}, obs)
	if err != nil || msg.Text != "hello" || b.Name != "backup" {
		t.Fatalf("got %q from %s, %v; want hello from backup", msg.Text, b.Name, err)
	}
	var requests []string
	for _, l := range obs.lines {
		if strings.HasPrefix(l, "request") {
			requests = append(requests, l)
		}
	}
	want := []string{"request flash fallback 1 meta map[team:research]", "request backup fallback 2 meta map[team:research]"}
	if fmt.Sprint(requests) != fmt.Sprint(want) {
		t.Fatalf("requests %q, want %q (a fallback is a request of its own)", requests, want)
	}
	var stages []string
	for _, ev := range log.events {
		stages = append(stages, ev.Stage+" "+ev.Model)
	}
	if want := "[before flash after flash before backup after backup]"; fmt.Sprint(stages) != want {
		t.Fatalf("hook stages %v, want %s", stages, want)
	}
	last := log.events[3]
	var m struct {
		Content      string `json:"content"`
		FinishReason string `json:"finish_reason"`
	}
	if err := json.Unmarshal(last.Message, &m); err != nil || m.Content != "hello" || m.FinishReason != "stop" {
		t.Fatalf("after event message %s (%v), want the assembled answer", last.Message, err)
	}
	if last.Usage == nil || last.Usage.PromptTokens != 100 || last.Provider != "p2" || last.Fallback != 2 {
		t.Fatalf("after event %+v, want usage 100 prompt tokens from provider p2, fallback 2", last)
	}
	if failed := log.events[1]; failed.ResultErr == nil || failed.ResultErr.Kind != sdk.KindRateLimited {
		t.Fatalf("after event of the failed model %+v, want its rate_limited error", failed)
	}
}
