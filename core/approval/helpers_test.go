package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

// fakeTool is an in-process tool source that counts its executions.
type fakeTool struct {
	mu   sync.Mutex
	runs int
	last json.RawMessage // the arguments of the last execution
}

func (f *fakeTool) Execute(_ context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	f.last = call.Arguments
	return sdk.Result{Content: "ran " + call.Tool, Presentation: sdk.TextView{Text: "ran"}}, nil
}

func (f *fakeTool) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs
}

var (
	terminalSchema = schema.Object(schema.String("command", "Command.").Required(), schema.Integer("timeout_seconds", "Timeout.")).JSON()
	writeSchema    = schema.Object(schema.String("path", "Path.").Required(), schema.String("content", "Content.").Required()).JSON()
	anySchema      = json.RawMessage(`{"type":"object"}`)
)

// registry holds the built-in terminal and write_file, third-party plugin
// tools and MCP tools, all backed by src.
func registry(t *testing.T, src tools.Source) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	add := func(tl tools.Tool) {
		tl.Source = src
		if err := reg.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	builtin := func(name string, sch json.RawMessage, caps sdk.Capabilities) tools.Tool {
		return tools.Tool{Spec: sdk.ToolSpec{Name: name, InputSchema: sch, Capabilities: caps}, Origin: tools.OriginBuiltin, Owner: name}
	}
	add(builtin("terminal", terminalSchema, sdk.Capabilities{Reads: true, Writes: true, Executes: true}))
	add(builtin("write_file", writeSchema, sdk.Capabilities{Writes: true}))
	add(builtin("edit_file", anySchema, sdk.Capabilities{Writes: true}))
	add(builtin("read_file", anySchema, sdk.Capabilities{Reads: true}))
	for _, p := range []struct {
		name, owner, approval string
		caps                  sdk.Capabilities
	}{
		{"wx_allow", "wxa", config.PolicyAllow, sdk.Capabilities{Writes: true}},
		{"wx_ask", "wxq", config.PolicyAsk, sdk.Capabilities{Writes: true}},
		{"wx_deny", "wxd", config.PolicyDeny, sdk.Capabilities{Executes: true}},
		{"wx_read", "wxq", config.PolicyAsk, sdk.Capabilities{Reads: true, Network: true}},
	} {
		add(tools.Tool{Spec: sdk.ToolSpec{Name: p.name, InputSchema: anySchema, Capabilities: p.caps}, Origin: tools.OriginPlugin, Owner: p.owner, Approval: p.approval})
	}
	for _, m := range []struct{ server, approval string }{{"open", config.PolicyAllow}, {"ev", config.PolicyAsk}, {"shut", config.PolicyDeny}} {
		add(tools.Tool{Spec: sdk.ToolSpec{Name: m.server + "__echo", InputSchema: anySchema}, Origin: tools.OriginMCP, Owner: m.server, Approval: m.approval})
	}
	return reg
}

// fakeAsker answers with answer (or err) and counts the questions.
type fakeAsker struct {
	mu      sync.Mutex
	answers []approval.Answer // one per question, the last repeated
	err     error
	asked   []approval.Action
}

func (a *fakeAsker) Ask(_ context.Context, act approval.Action) (approval.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, act)
	if a.err != nil {
		return approval.No, a.err
	}
	ans := a.answers[min(len(a.asked), len(a.answers))-1]
	return ans, nil
}

func (a *fakeAsker) count() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// approveHook is an in-process tools/approve hook.
func approveHook(d sdk.Decision, err error) tools.Hook {
	return tools.Hook{Name: "gate", Phases: []string{sdk.PhaseApprove}, Handle: func(context.Context, sdk.HookEvent) (sdk.HookVerdict, error) {
		return sdk.HookVerdict{Decision: d, Reason: "gate says so"}, err
	}}
}

var errHook = errors.New("gate is broken")

// env is one session with a pipeline and an executor over a real store.
type env struct {
	store    *session.Store
	session  string
	ws       string
	src      *fakeTool
	ex       *tools.Executor
	pipeline *approval.Pipeline
	reg      *tools.Registry
}

type envOptions struct {
	perm      config.Permissions
	yes       bool
	asker     approval.Asker
	hooks     []tools.Hook
	protected []approval.Protected
}

func newEnv(t *testing.T, ws string, store *session.Store, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	info, err := store.CreateSession(ctx, session.SessionInfo{Agent: "coder", Model: "m", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if o.perm.Terminal == "" {
		o.perm.Terminal = config.PolicyAsk
	}
	if o.perm.Unattended == "" {
		o.perm.Unattended = config.UnattendedDeny
	}
	e := &env{store: store, session: info.ID, ws: ws, src: &fakeTool{}}
	e.reg = registry(t, e.src)
	rec := tools.SessionRecorder(store, info.ID)
	p, err := approval.New(approval.Options{
		Store: store, Session: info.ID, Workspace: ws, Permissions: o.perm, Recorder: rec, Yes: o.yes, Asker: o.asker,
		Protected: o.protected,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.pipeline = p
	e.ex, err = tools.NewExecutor(e.reg, tools.Options{
		Session: info.ID, Agent: "coder", Whitelist: e.reg.Names(), Approver: p, Recorder: rec, Hooks: o.hooks,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func openStore(t *testing.T, _ string) *session.Store {
	t.Helper()
	s, err := session.Open(filepath.Join(t.TempDir(), session.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// decided returns the action.decided events of the session.
func (e *env) events(t *testing.T, typ string) []map[string]any {
	t.Helper()
	evs, err := e.store.Events(context.Background(), e.session, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range evs {
		if ev.Type == typ {
			var m map[string]any
			if err := json.Unmarshal(ev.Data, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
	}
	return out
}

func (e *env) actions(t *testing.T) []session.Action {
	t.Helper()
	acts, err := e.store.Actions(context.Background(), e.session, "")
	if err != nil {
		t.Fatal(err)
	}
	return acts
}

func args(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}
