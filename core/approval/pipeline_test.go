package approval_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// want is the expected fate of one call through the pipeline.
type want struct {
	decision string // approved, denied or deferred; "" for a direct call (no action)
	by       string
	rule     string // a substring of the rule
	kind     sdk.ErrorKind
	asked    int
}

// check runs one call and verifies the outcome, the action and its events.
func check(t *testing.T, e *env, asker *fakeAsker, tool string, arguments []byte, w want) {
	t.Helper()
	o := e.ex.Run(context.Background(), sdk.Call{ID: "call_1", Tool: tool, Arguments: arguments})
	gotKind := sdk.ErrorKind("")
	if o.Result.Err != nil {
		gotKind = o.Result.Err.Kind
	}
	if gotKind != w.kind {
		t.Fatalf("result kind %q, want %q: %+v", gotKind, w.kind, o.Result)
	}
	ran := w.decision == "" && w.kind == "" || w.decision == approval.Approved
	if runs := e.src.count(); (runs == 1) != ran {
		t.Errorf("the tool ran %d times; want it to run: %v", runs, ran)
	}
	if n := asker.count(); n != w.asked {
		t.Errorf("the person was asked %d times, want %d", n, w.asked)
	}
	acts := e.actions(t)
	if w.decision == "" {
		if len(acts) != 0 {
			t.Errorf("a direct call made an action: %+v", acts)
		}
		return
	}
	if len(acts) != 1 {
		t.Fatalf("%d actions, want 1", len(acts))
	}
	a := acts[0]
	wantStatus := map[string]string{approval.Approved: "executed", approval.Denied: "denied", approval.Deferred: "pending"}[w.decision]
	if a.Status != wantStatus || a.CallID != "call_1" || a.Tool != tool || a.Summary == "" {
		t.Errorf("action %+v, want status %s", a, wantStatus)
	}
	if w.decision != approval.Deferred && (a.DecidedBy != w.by || !strings.Contains(a.Rule, w.rule)) {
		t.Errorf("action decided by %q rule %q, want %q %q", a.DecidedBy, a.Rule, w.by, w.rule)
	}
	if ps := e.events(t, event.TypeActionProposed); len(ps) != 1 || ps[0]["action_id"] != a.ID || ps[0]["kind"] != a.Kind {
		t.Errorf("action.proposed events %v", ps)
	}
	ds := e.events(t, event.TypeActionDecided)
	if len(ds) != 1 || ds[0]["action_id"] != a.ID || ds[0]["decision"] != w.decision || ds[0]["by"] != w.by || !strings.Contains(fmt.Sprint(ds[0]["rule"]), w.rule) {
		t.Errorf("action.decided events %v, want %s by %s (%s)", ds, w.decision, w.by, w.rule)
	}
	res := e.events(t, "tool.result")
	if len(res) != 1 || res[0]["action_id"] != a.ID {
		t.Errorf("tool.result events %v", res)
	}
	switch w.decision {
	case approval.Deferred:
		if !o.Pending || o.ActionID != a.ID || !strings.Contains(o.Result.Err.Message, a.ID) || !strings.Contains(o.Result.Err.Message, "other work") {
			t.Errorf("pending outcome %+v", o)
		}
	case approval.Denied:
		if !strings.Contains(o.Result.Err.Message, "denied") || !strings.Contains(o.Result.Err.Message, "Do not retry") {
			t.Errorf("denied message %q", o.Result.Err.Message)
		}
	case approval.Approved:
		if a.Result == nil || !strings.Contains(string(a.Result), `"ok":true`) {
			t.Errorf("the result of an approved action is not recorded: %s", a.Result)
		}
	}
}

func TestTerminalDecisionOrder(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	store := openStore(t, ws)
	deny := []string{"rm *", "git push *"}
	allow := []string{"go test ./...", "ls *", "rm *"}
	tests := []struct {
		name    string
		command string
		perm    config.Permissions
		hook    *struct {
			d   sdk.Decision
			err error
		}
		yes     bool
		answers []approval.Answer
		askErr  error
		want    want
	}{
		{name: "deny_commands beats every allow", command: "rm -fr build",
			perm: config.Permissions{DenyCommands: deny, AllowCommands: allow, Terminal: config.PolicyAllow},
			hook: hook(sdk.DecisionAllow, nil), yes: true, answers: []approval.Answer{approval.Always},
			want: want{approval.Denied, approval.ByPolicy, `deny_commands "rm *"`, sdk.KindDenied, 0}},
		{name: "deny_commands through a wrapper", command: "sudo git push origin main",
			perm: config.Permissions{DenyCommands: deny}, yes: true,
			want: want{approval.Denied, approval.ByPolicy, `deny_commands "git push *"`, sdk.KindDenied, 0}},
		{name: "terminal deny", command: "ls -la",
			perm: config.Permissions{Terminal: config.PolicyDeny, AllowCommands: allow}, hook: hook(sdk.DecisionAllow, nil), yes: true,
			want: want{approval.Denied, approval.ByPolicy, `terminal = "deny"`, sdk.KindDenied, 0}},
		{name: "redirection outside the workspace", command: "echo hi > /etc/harness-test",
			perm: config.Permissions{Terminal: config.PolicyAllow}, hook: hook(sdk.DecisionAllow, nil), yes: true,
			want: want{approval.Denied, approval.ByPolicy, "redirection outside workspace", sdk.KindDenied, 0}},
		{name: "hook deny beats allow rules", command: "go test ./...",
			perm: config.Permissions{AllowCommands: allow}, hook: hook(sdk.DecisionDeny, nil), yes: true,
			want: want{approval.Denied, approval.ByHook, `hook "gate": gate says so`, sdk.KindDenied, 0}},
		{name: "a failing hook denies", command: "go test ./...",
			perm: config.Permissions{AllowCommands: allow}, hook: hook(sdk.DecisionAllow, errHook), yes: true,
			want: want{approval.Denied, approval.ByHook, "gate is broken", sdk.KindDenied, 0}},
		{name: "hook allow", command: "curl https://example.com",
			hook: hook(sdk.DecisionAllow, nil), answers: []approval.Answer{approval.No},
			want: want{approval.Approved, approval.ByHook, `hook "gate"`, "", 0}},
		{name: "allow_commands", command: "go test ./...",
			perm: config.Permissions{AllowCommands: allow}, answers: []approval.Answer{approval.No},
			want: want{approval.Approved, approval.ByPolicy, "allow_commands", "", 0}},
		{name: "terminal allow", command: "make build",
			perm: config.Permissions{Terminal: config.PolicyAllow}, answers: []approval.Answer{approval.No},
			want: want{approval.Approved, approval.ByPolicy, `terminal = "allow"`, "", 0}},
		{name: "no rule approves an unparsable command", command: "echo 'unterminated",
			perm: config.Permissions{Terminal: config.PolicyAllow, AllowCommands: []string{"echo *"}}, yes: true,
			want: want{approval.Approved, approval.ByFlag, "--yes", "", 0}},
		{name: "unparsable and nobody to ask", command: "echo 'unterminated",
			perm: config.Permissions{Terminal: config.PolicyAllow},
			want: want{approval.Denied, approval.ByUnattended, `unattended = "deny"`, sdk.KindDenied, 0}},
		{name: "--yes before the person", command: "make", yes: true, answers: []approval.Answer{approval.No},
			want: want{approval.Approved, approval.ByFlag, "--yes", "", 0}},
		{name: "person says yes", command: "make", answers: []approval.Answer{approval.Yes},
			want: want{approval.Approved, approval.ByUser, "yes", "", 1}},
		{name: "person says no", command: "make", answers: []approval.Answer{approval.No},
			want: want{approval.Denied, approval.ByUser, "no", sdk.KindDenied, 1}},
		{name: "person says always", command: "make", answers: []approval.Answer{approval.Always},
			want: want{approval.Approved, approval.ByUser, "always for `make` in this session", "", 1}},
		{name: "nobody answers: unattended", command: "make", askErr: errors.New("EOF on stdin"),
			want: want{approval.Denied, approval.ByUnattended, `unattended = "deny"`, sdk.KindDenied, 1}},
		{name: "unattended deny", command: "make",
			want: want{approval.Denied, approval.ByUnattended, `unattended = "deny"`, sdk.KindDenied, 0}},
		{name: "unattended defer", command: "make", perm: config.Permissions{Unattended: config.UnattendedDefer},
			want: want{approval.Deferred, approval.ByUnattended, `unattended = "defer"`, sdk.KindPendingApproval, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var asker *fakeAsker
			o := envOptions{perm: tt.perm, yes: tt.yes}
			if tt.answers != nil || tt.askErr != nil {
				asker = &fakeAsker{answers: tt.answers, err: tt.askErr}
				o.asker = asker
			}
			if tt.hook != nil {
				o.hooks = append(o.hooks, approveHook(tt.hook.d, tt.hook.err))
			}
			e := newEnv(t, ws, store, o)
			check(t, e, asker, "terminal", args("command", tt.command), tt.want)
		})
	}
}

func hook(d sdk.Decision, err error) *struct {
	d   sdk.Decision
	err error
} {
	return &struct {
		d   sdk.Decision
		err error
	}{d, err}
}

func TestRememberedAlways(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	asker := &fakeAsker{answers: []approval.Answer{approval.Always, approval.No}}
	e := newEnv(t, ws, openStore(t, ws), envOptions{asker: asker})
	ctx := context.Background()
	run := func(id, command string) (by, rule string, ok bool) {
		o := e.ex.Run(ctx, sdk.Call{ID: id, Tool: "terminal", Arguments: args("command", command)})
		a, err := e.store.Action(ctx, o.ActionID)
		if err != nil {
			t.Fatal(err)
		}
		return a.DecidedBy, a.Rule, o.Result.Err == nil
	}
	if by, _, ok := run("c1", "go build ./..."); !ok || by != approval.ByUser || asker.count() != 1 {
		t.Fatalf("first call: by %s ok %v asked %d", by, ok, asker.count())
	}
	// The same program and subcommand, other arguments: the stated scope
	// (`go build *`) covers it, no new question.
	if by, rule, ok := run("c2", "go  build  -o bin/x ./cmd"); !ok || by != approval.ByUser || rule != "always for `go build *` in this session" || asker.count() != 1 {
		t.Errorf("remembered call: by %s rule %q ok %v asked %d", by, rule, ok, asker.count())
	}
	// Another subcommand is asked about again.
	if by, _, ok := run("c3", "go vet ./..."); ok || by != approval.ByUser || asker.count() != 2 {
		t.Errorf("other command: by %s ok %v asked %d", by, ok, asker.count())
	}
	// A covered command joined with an uncovered one is asked about.
	if _, _, ok := run("c3b", "go build ./... && curl example.com"); ok || asker.count() != 3 {
		t.Errorf("partly covered command: ok %v asked %d", ok, asker.count())
	}
	// "always" does not outlive the pipeline: a new run asks again...
	fresh := newEnv(t, ws, e.store, envOptions{asker: &fakeAsker{answers: []approval.Answer{approval.No}}})
	if o := fresh.ex.Run(ctx, sdk.Call{ID: "c4", Tool: "terminal", Arguments: args("command", "go build ./...")}); o.Result.Err == nil {
		t.Error("a new session should not inherit an earlier session's always")
	}
	// ...unless it resumes the session and restores what its events recorded.
	evs, err := e.store.Events(ctx, e.session, 0)
	if err != nil {
		t.Fatal(err)
	}
	scopes := approval.RememberedScopes(evs)
	if len(scopes) != 1 || scopes[0] != "terminal:go build *" {
		t.Fatalf("recorded scopes %q, want [terminal:go build *]", scopes)
	}
	resumed := newEnv(t, ws, e.store, envOptions{asker: &fakeAsker{answers: []approval.Answer{approval.No}}})
	resumed.pipeline.Remember(scopes...)
	if o := resumed.ex.Run(ctx, sdk.Call{ID: "c5", Tool: "terminal", Arguments: args("command", "go build ./...")}); o.Result.Err != nil {
		t.Errorf("a resumed session forgot its always: %v", o.Result.Err)
	}
}

func TestNoWithAReasonReachesTheModel(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	asker := &fakeAsker{answers: []approval.Answer{approval.NoBecause("use make test instead")}}
	e := newEnv(t, ws, openStore(t, ws), envOptions{asker: asker})
	o := e.ex.Run(context.Background(), sdk.Call{ID: "c1", Tool: "terminal", Arguments: args("command", "go test ./... | tee log")})
	if o.Result.Err == nil || o.Result.Err.Kind != sdk.KindDenied || !strings.Contains(o.Result.Err.Message, `who said: "use make test instead"`) {
		t.Fatalf("result %+v, want a denial carrying the person's reason", o.Result.Err)
	}
	if len(asker.asked) != 1 {
		t.Fatalf("asked %d times", len(asker.asked))
	}
	q := asker.asked[0]
	if q.Command != "go test ./... | tee log" || len(q.Commands) != 2 || q.Commands[0] != "go test ./..." || q.Commands[1] != "tee log" {
		t.Errorf("question shows command %q, simple commands %q", q.Command, q.Commands)
	}
	if q.Scope != "`go test *` and `tee *` in this session" {
		t.Errorf("scope %q", q.Scope)
	}
}

func TestToolsAndMCPDecisions(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	store := openStore(t, ws)
	tests := []struct {
		tool string
		yes  bool
		want want
	}{
		{"read_file", false, want{}},
		{"wx_allow", false, want{}},
		{"wx_read", false, want{}},
		{"wx_ask", true, want{approval.Approved, approval.ByFlag, "--yes", "", 0}},
		{"wx_ask", false, want{approval.Denied, approval.ByUnattended, `unattended = "deny"`, sdk.KindDenied, 0}},
		{"wx_deny", true, want{approval.Denied, approval.ByPolicy, `plugin "wxd": approval = "deny"`, sdk.KindDenied, 0}},
		{"open__echo", false, want{}},
		{"ev__echo", true, want{approval.Approved, approval.ByFlag, "--yes", "", 0}},
		{"shut__echo", true, want{approval.Denied, approval.ByPolicy, `mcp "shut": approval = "deny"`, sdk.KindDenied, 0}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s yes=%v", tt.tool, tt.yes), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, ws, store, envOptions{yes: tt.yes})
			check(t, e, nil, tt.tool, []byte(`{"x":1}`), tt.want)
			if acts := e.actions(t); len(acts) == 1 {
				wantKind := session.ActionKindTool
				if strings.Contains(tt.tool, "__") {
					wantKind = session.ActionKindMCP
				}
				if acts[0].Kind != wantKind {
					t.Errorf("action kind %q, want %q", acts[0].Kind, wantKind)
				}
			}
		})
	}
}

func TestAskerSeesTheAction(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	asker := &fakeAsker{answers: []approval.Answer{approval.No}}
	e := newEnv(t, ws, openStore(t, ws), envOptions{asker: asker, perm: config.Permissions{AllowCommands: []string{"ls *"}}})
	e.ex.Run(context.Background(), sdk.Call{ID: "c", Tool: "terminal", Arguments: args("command", "ls && curl   example.com")})
	if len(asker.asked) != 1 {
		t.Fatal("not asked")
	}
	a := asker.asked[0]
	if a.ID == "" || a.Kind != session.ActionKindTerminal || a.Summary != "ls && curl example.com" || !strings.Contains(a.Reason, "curl example.com") {
		t.Errorf("asked about %+v", a)
	}
}
