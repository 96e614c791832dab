package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/sdk"
)

// StreamHook is a subscriber to llm/stream: a hook plugin declared with an
// HCL hook block. It is called before each model request (one per binding
// tried: the first model and every fallback) and may veto it or add
// metadata, and after it with the assembled message and its usage.
type StreamHook struct {
	Name string
	// Timeout bounds each call of Handle; 0 means no bound of its own.
	Timeout time.Duration
	Handle  func(ctx context.Context, ev sdk.HookEvent) (sdk.HookVerdict, error)
}

// RequestInfo describes one model request: the binding it goes to, its
// 1-based position in the request's fallback list and the metadata the
// llm/stream hooks added.
type RequestInfo struct {
	Binding  Binding
	Fallback int
	Metadata map[string]string
}

// RequestObserver is an Observer that records each model request (an
// llm.request event per binding tried). Complete calls OnRequest, when the
// Observer implements it, after the llm/stream hooks let the request go
// and before its first chunk, retry or usage.
type RequestObserver interface {
	OnRequest(info RequestInfo)
}

// requestHook runs once per binding tried, between fallback and retry: the
// llm/stream hooks before (deciding: a deny, an error or a timeout vetoes
// the request, which is not retried), the request's OnRequest, the request
// with its retries, and the hooks after (observing: failures are logged).
type requestHook struct {
	hooks []StreamHook
	log   hclog.Logger
}

func (requestHook) Name() string { return "llm/stream hooks" }

func (h requestHook) Wrap(next Handler) Handler {
	return func(ctx context.Context, call *Call) (AssistantMessage, error) {
		ev := sdk.HookEvent{Phase: sdk.PhaseLLMStream, Stage: sdk.StageBefore, SessionID: call.Request.Session,
			Agent: call.Request.Agent, Model: call.Binding.Name, Provider: call.Binding.Provider, Fallback: call.Fallback}
		var meta map[string]string
		for _, hk := range h.hooks {
			v, err := callStreamHook(ctx, hk, ev)
			if err != nil {
				h.log.Warn("llm/stream hook failed before a request: the request is vetoed", "hook", hk.Name, "model", ev.Model, "error", err)
				return AssistantMessage{}, sdk.Errorf(sdk.KindDenied, "llm/stream hook %q failed, which vetoes the request to model %q: %v", hk.Name, ev.Model, err)
			}
			if v.Decision == sdk.DecisionDeny {
				reason := v.Reason
				if reason == "" {
					reason = "no reason given"
				}
				return AssistantMessage{}, sdk.Errorf(sdk.KindDenied, "llm/stream hook %q vetoed the request to model %q: %s", hk.Name, ev.Model, reason)
			}
			if len(v.Metadata) > 0 {
				if meta == nil {
					meta = map[string]string{}
				}
				maps.Copy(meta, v.Metadata)
			}
		}
		if ro, ok := call.Observer.(RequestObserver); ok {
			ro.OnRequest(RequestInfo{Binding: call.Binding, Fallback: call.Fallback, Metadata: meta})
		}
		msg, err := next(ctx, call)
		if len(h.hooks) == 0 {
			return msg, err
		}
		ev.Stage = sdk.StageAfter
		if msg.Usage != (sdk.Usage{}) {
			u := msg.Usage
			ev.Usage = &u
		}
		if err != nil {
			ev.ResultErr = sdk.AsError(err)
		} else {
			ev.Message = messageJSON(msg)
		}
		for _, hk := range h.hooks {
			if _, herr := callStreamHook(context.WithoutCancel(ctx), hk, ev); herr != nil {
				h.log.Warn("llm/stream hook failed after a request where it only observes: ignored", "hook", hk.Name, "model", ev.Model, "error", herr)
			}
		}
		return msg, err
	}
}

// callStreamHook calls hk under its timeout; a panic of an in-process hook
// is an error like any other.
func callStreamHook(ctx context.Context, hk StreamHook, ev sdk.HookEvent) (v sdk.HookVerdict, err error) {
	if hk.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, hk.Timeout)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("hook %q panicked: %v", hk.Name, r)
		}
	}()
	v, err = hk.Handle(ctx, ev)
	if err != nil && hk.Timeout > 0 && (errors.Is(ctx.Err(), context.DeadlineExceeded) || sdk.KindOf(err) == sdk.KindTimeout) {
		return v, fmt.Errorf("it did not answer within %s", hk.Timeout)
	}
	return v, err
}

// messageJSON is the assembled message as llm/stream hooks see it.
func messageJSON(m AssistantMessage) json.RawMessage {
	type call struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	calls := make([]call, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		args := json.RawMessage(c.Arguments)
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		calls[i] = call{ID: c.ID, Name: c.Name, Arguments: args}
	}
	b, err := json.Marshal(struct {
		Content      string `json:"content"`
		Reasoning    string `json:"reasoning"`
		ToolCalls    []call `json:"tool_calls"`
		FinishReason string `json:"finish_reason"`
	}{m.Text, m.Reasoning, calls, m.FinishReason})
	if err != nil {
		return nil
	}
	return b
}

var _ Hook = requestHook{}
