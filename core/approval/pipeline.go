package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/shellpolicy"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Store is what the pipeline needs of the session store.
type Store interface {
	ProposeAction(ctx context.Context, a session.Action) (session.Action, error)
	DecideAction(ctx context.Context, id, status, by, rule string) error
	SetActionResult(ctx context.Context, id string, result json.RawMessage) error
}

var _ Store = (*session.Store)(nil)

// Options configure the pipeline of one agent in one session.
type Options struct {
	Store       Store
	Session     string // the session's full id
	Workspace   string // absolute
	Permissions config.Permissions
	// Protected are the paths no call may modify (see Protected).
	Protected []Protected
	// Secret are files no built-in tool may read for the model: a
	// configuration with an API key written out.
	Secret   []Protected
	Recorder tools.Recorder // action.proposed and action.decided; nil drops them
	// Yes approves what no rule decided (--yes).
	Yes bool
	// Asker is the person at the terminal; nil when nobody can answer
	// (no terminal, --no-input).
	Asker  Asker
	Logger hclog.Logger
}

// Pipeline is the action pipeline of DESIGN §6. It implements
// tools.Approver and is safe for concurrent use.
type Pipeline struct {
	opts      Options
	perm      config.Permissions
	workspace string // real path
	policy    shellpolicy.Policy
	guard     *guard
	secrets   *guard
	rec       tools.Recorder
	log       hclog.Logger

	askMu sync.Mutex // one question at a time

	mu     sync.Mutex
	always remembers // scopes a person approved for the session
}

var (
	_ tools.Approver = (*Pipeline)(nil)
	_ tools.Pinner   = (*Pipeline)(nil)
)

// New returns the pipeline. Terminal commands are parsed in the dialect of
// the shell the terminal tool runs them with: bash where there is one, else
// POSIX sh.
func New(opts Options) (*Pipeline, error) {
	if opts.Store == nil || opts.Session == "" {
		return nil, errors.New("approval: the pipeline needs a store and a session")
	}
	ws, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("approval: workspace %q: %w", opts.Workspace, err)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	if opts.Recorder == nil {
		opts.Recorder = event.Discard
	}
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	perm := opts.Permissions
	return &Pipeline{
		opts:      opts,
		perm:      perm,
		workspace: ws,
		policy: shellpolicy.Policy{
			Terminal:      perm.Terminal,
			AllowCommands: perm.AllowCommands,
			DenyCommands:  perm.DenyCommands,
			Workspace:     ws,
			WriteGlobs:    perm.Write,
			Dialect:       hostDialect(),
		},
		guard:   newGuard(opts.Protected, ", a protected path: no rule, answer or flag can allow changing it"),
		secrets: newGuard(opts.Secret, ""),
		rec:     opts.Recorder,
		log:     opts.Logger.Named("approval"),
		always:  remembers{},
	}, nil
}

func hostDialect() shellpolicy.Dialect {
	if p, err := exec.LookPath("bash"); err == nil {
		return shellpolicy.DialectFor(p)
	}
	return shellpolicy.POSIX
}

// Approve implements tools.Approver: a direct call runs; any other becomes
// a proposed action, decided in the order of DESIGN §6.
func (p *Pipeline) Approve(ctx context.Context, req tools.ApprovalRequest) tools.Approval {
	pl, refusal := p.plan(req)
	if refusal != nil {
		return tools.Approval{Err: refusal}
	}
	if pl.kind == "" {
		return tools.Approval{Run: true, Arguments: pinned(req.Call.Arguments, pl.approved)}
	}
	keep := context.WithoutCancel(ctx)
	act, err := p.opts.Store.ProposeAction(keep, session.Action{
		Session: p.opts.Session, CallID: req.Call.ID, Tool: req.Call.Tool,
		Kind: pl.kind, Summary: pl.summary, Arguments: req.Call.Arguments,
	})
	if err != nil {
		return tools.Approval{Err: sdk.Errorf(sdk.KindInternal, "%s: the action could not be recorded, so it was not run: %v", req.Call.Tool, err)}
	}
	if err := p.rec.Record(keep, event.ActionProposed{
		ActionID: act.ID, CallID: act.CallID, Tool: act.Tool, Kind: act.Kind, Summary: act.Summary,
	}); err != nil {
		p.log.Error("event not recorded", "type", event.TypeActionProposed, "action", act.ID, "error", err)
	}

	d := p.decide(ctx, req, pl, act)
	if d.canceled {
		return tools.Approval{ActionID: act.ID, Err: sdk.Errorf(sdk.KindCanceled,
			"%s: canceled while awaiting approval; action %s stays pending", req.Call.Tool, act.ID)}
	}
	if d.decision != Deferred {
		if err := p.opts.Store.DecideAction(keep, act.ID, d.decision, d.by, d.rule); err != nil {
			return tools.Approval{ActionID: act.ID, Err: sdk.Errorf(sdk.KindInternal,
				"%s: the decision on action %s could not be recorded, so it was not run: %v", req.Call.Tool, act.ID, err)}
		}
	}
	if err := p.rec.Record(keep, event.ActionDecided{
		ActionID: act.ID, CallID: act.CallID, Decision: d.decision, By: d.by, Rule: d.rule, Remember: d.remember,
	}); err != nil {
		p.log.Error("event not recorded", "type", event.TypeActionDecided, "action", act.ID, "error", err)
	}
	p.log.Debug("action decided", "action", act.ID, "tool", act.Tool, "decision", d.decision, "by", d.by, "rule", d.rule)

	what := fmt.Sprintf("%s (%s)", req.Call.Tool, pl.summary)
	switch d.decision {
	case Approved:
		return tools.Approval{Run: true, ActionID: act.ID, Arguments: pinned(req.Call.Arguments, pl.approved)}
	case Deferred:
		return tools.Approval{ActionID: act.ID, Pending: true, Err: sdk.Errorf(sdk.KindPendingApproval,
			"%s awaits a person's approval as action %s and has not run. Continue with other work and do not repeat this call; "+
				"a person can approve it with `harness actions approve %s`, and its result will then be available.",
			what, act.ID, act.ID)}
	}
	return tools.Approval{ActionID: act.ID, Err: sdk.Errorf(sdk.KindDenied,
		"%s was denied %s and did not run. Do not retry it as it is: choose another way, or tell the user what you need and why.",
		what, d.explain())}
}

// Pin implements tools.Pinner: an action approved after its run
// (`harness actions approve`) runs with the path its write resolves to now
// pinned, which the write plugin checks against the file it opens.
func (p *Pipeline) Pin(req tools.ApprovalRequest) json.RawMessage {
	pl, refusal := p.plan(req)
	if refusal != nil {
		return nil
	}
	return pinned(req.Call.Arguments, pl.approved)
}

// Executed implements tools.Approver: it records the result of an action
// approved during the run.
func (p *Pipeline) Executed(ctx context.Context, actionID string, result tools.ResultEvent) error {
	raw, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return p.opts.Store.SetActionResult(ctx, actionID, raw)
}
