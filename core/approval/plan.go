package approval

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/shellpolicy"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/internal/textedit"
	"github.com/harness-agent/harness/sdk"
)

// ApprovedPathArg is the argument the pipeline adds to a write_file or
// edit_file call it lets run: the workspace path, symbolic links resolved,
// that the glob check or the person approved. The write plugin refuses the
// call when the path it resolves differs. Models cannot send it: the
// tools' schemas do not allow it, and the pipeline sets it after the
// arguments were validated.
const ApprovedPathArg = "approved_path"

// plan is what the rules say about one call before anyone is asked.
type plan struct {
	kind     string // "" runs directly
	summary  string
	diff     string   // a write's unified diff, shown before the question
	scope    []string // what an "always" answer covers (scope keys)
	command  string   // terminal: the whole command
	commands []string // terminal: every simple command, in full
	deny     string   // a hard denial's rule
	allow    string   // an allow rule's name
	reason   string   // why a hook, a person or --yes must decide
	parsed   bool     // terminal: the command parsed; rules may approve it
	approved string   // a write's resolved workspace path, pinned in the call for the plugin to check
}

// plan classifies a call: direct, or a proposed action and what the rules
// say about it. An error refuses the call before any action exists.
func (p *Pipeline) plan(req tools.ApprovalRequest) (plan, *sdk.Error) {
	t := req.Tool
	switch {
	case t.Origin == tools.OriginBuiltin && !t.Spec.Writes && !t.Spec.Executes:
		return plan{}, p.guardRead(req.Call)
	case t.Origin == tools.OriginBuiltin && t.Spec.Name == config.TerminalTool:
		return p.planTerminal(req.Call)
	case t.Origin == tools.OriginBuiltin && t.Spec.Name == config.WriteFileTool:
		return p.planWrite(req.Call)
	case t.Origin == tools.OriginBuiltin && t.Spec.Name == config.EditFileTool:
		return p.planEdit(req.Call)
	case t.Origin == tools.OriginBuiltin && t.Spec.Writes:
		return p.planBuiltinWrite(req), nil
	case t.Origin == tools.OriginMCP:
		return planBlock(req, session.ActionKindMCP, fmt.Sprintf("mcp %q", t.Owner)), nil
	case t.Spec.Writes || t.Spec.Executes:
		return planBlock(req, session.ActionKindTool, fmt.Sprintf("plugin %q", t.Owner)), nil
	}
	return plan{}, nil
}

func (p *Pipeline) planTerminal(call sdk.Call) (plan, *sdk.Error) {
	var args struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return plan{}, sdk.Errorf(sdk.KindInvalidArgs, "terminal: arguments: %v", err)
	}
	v := shellpolicy.Classify(args.Command, p.policy)
	pl := plan{kind: session.ActionKindTerminal, summary: oneLine(args.Command), scope: terminalScope(args.Command, v), command: args.Command, parsed: v.Parsed}
	for _, c := range v.Commands {
		pl.commands = append(pl.commands, c.Text)
	}
	switch v.Decision {
	case shellpolicy.Deny:
		pl.deny = v.Rule
	case shellpolicy.Allow:
		pl.allow = v.Rule
	default:
		pl.reason = v.Rule
	}
	if pl.deny == "" {
		p.guardTerminal(&pl, v)
	}
	return pl, nil
}

// guardTerminal refuses a command that redirects into a protected path or
// runs a program that modifies the files it names on one; a command that
// only names a protected path (`cat agent.hcl`) needs a person, never a
// rule. Where a command writes without naming the file, the sandbox keeps
// it off the protected paths.
func (p *Pipeline) guardTerminal(pl *plan, v shellpolicy.Verdict) {
	// After a cd, a relative path may name a protected file from another
	// folder: it is taken to, when its name is a protected file's.
	cd := slices.ContainsFunc(v.Commands, func(c shellpolicy.SimpleCommand) bool { return changesDir[c.Program] })
	// Only for writes: `cd docs && grep harness *.md` reads.
	refusal := func(path string, writes bool) string {
		if why := p.guard.refusal(p.workspace, path, writes); why != "" || !cd || !writes || filepath.IsAbs(path) {
			return why
		}
		return p.guard.byName(path)
	}
	for _, w := range v.Writes {
		if why := refusal(w, true); why != "" {
			pl.deny = "redirection into a protected path: " + why
			return
		}
	}
	for _, c := range v.Commands {
		for _, a := range c.Args {
			why := refusal(argPath(a), modifiesFiles[c.Program])
			switch {
			case why == "":
				continue
			case modifiesFiles[c.Program]:
				pl.deny = fmt.Sprintf("%s on a protected path: %s", c.Program, why)
				return
			}
			pl.allow = ""
			if !strings.HasPrefix(pl.reason, "names a protected path") {
				pl.reason = "names a protected path: " + why
			}
		}
	}
}

// argPath is the file an argument names: the value of --opt=FILE or
// of=FILE, else the argument.
func argPath(a string) string {
	if i := strings.IndexByte(a, '='); i >= 0 && !strings.ContainsRune(a[:i], '/') {
		return a[i+1:]
	}
	return a
}

// changesDir are the builtins after which relative paths mean another
// folder.
var changesDir = map[string]bool{"cd": true, "pushd": true, "popd": true}

// modifiesFiles are programs that create, change, move or delete the files
// their arguments name.
var modifiesFiles = map[string]bool{
	"sed": true, "perl": true, "tee": true, "cp": true, "mv": true, "rm": true, "ln": true,
	"install": true, "truncate": true, "dd": true, "chmod": true, "chown": true, "chgrp": true,
	"touch": true, "rsync": true, "patch": true, "shred": true, "unlink": true, "rmdir": true,
	"mkdir": true, "mkfifo": true, "setfattr": true, "chattr": true, "ed": true, "ex": true,
}

func (p *Pipeline) planWrite(call sdk.Call) (plan, *sdk.Error) {
	var args struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return plan{}, sdk.Errorf(sdk.KindInvalidArgs, "write_file: arguments: %v", err)
	}
	return p.planFileWrite(config.WriteFileTool, args.Path, func(change) (string, *sdk.Error) { return args.Content, nil })
}

// planEdit plans edit_file like write_file: the same globs decide, and a
// person sees the diff the edits make to the file as it is now. Edits that
// cannot apply are refused before anyone is asked; the plugin checks them
// again against the file it writes.
func (p *Pipeline) planEdit(call sdk.Call) (plan, *sdk.Error) {
	var args textedit.Args
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return plan{}, sdk.Errorf(sdk.KindInvalidArgs, "edit_file: arguments: %v", err)
	}
	edits, err := args.List()
	if err != nil {
		return plan{}, sdk.Errorf(sdk.KindInvalidArgs, "edit_file: %v", err)
	}
	return p.planFileWrite(config.EditFileTool, args.Path, func(ch change) (string, *sdk.Error) {
		switch {
		case !ch.readable():
			return "", nil // the summary says why; the plugin refuses or applies
		case !ch.exists:
			return "", sdk.Errorf(sdk.KindInvalidArgs, "edit_file: %q does not exist: create it with write_file", args.Path)
		}
		res, err := textedit.Apply(ch.before, edits)
		if err != nil {
			return "", sdk.Errorf(sdk.KindInvalidArgs, "edit_file: %q: %v", args.Path, err)
		}
		return res.Text, nil
	})
}

// planFileWrite plans a write of tool to path: direct inside
// permissions.write, else an action whose summary and diff compare the
// file now with what after makes of it.
func (p *Pipeline) planFileWrite(tool, path string, after func(change) (string, *sdk.Error)) (plan, *sdk.Error) {
	rel, err := workspacePath(p.workspace, path)
	if err != nil {
		return plan{}, sdk.Errorf(sdk.KindPathEscape, "%s: %q is %v %s; write inside the workspace", tool, path, err, p.workspace)
	}
	if why := p.guard.refusal(p.workspace, path, false); why != "" {
		return plan{kind: session.ActionKindWriteFile, summary: "write " + rel + " (protected)", deny: why}, nil
	}
	if shellpolicy.MatchWriteGlob(rel, p.perm.Write) != "" {
		return plan{approved: rel}, nil
	}
	reason := fmt.Sprintf("%s is outside permissions.write", rel)
	if len(p.perm.Write) > 0 {
		reason += " (" + strings.Join(p.perm.Write, ", ") + ")"
	}
	ch := readChange(p.workspace, rel)
	content, refusal := after(ch)
	if refusal != nil {
		return plan{}, refusal
	}
	ch.after = content
	return plan{
		kind:     session.ActionKindWriteFile,
		summary:  ch.summary(tool, rel),
		diff:     ch.diff(rel),
		scope:    []string{writeScope(rel)},
		reason:   reason,
		approved: rel,
	}, nil
}

// guardRead refuses a built-in read of a file that holds a secret (a
// configuration with its api_key written out): the model must not see it.
func (p *Pipeline) guardRead(call sdk.Call) *sdk.Error {
	var args struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(call.Arguments, &args) != nil || args.Path == "" {
		return nil
	}
	if why := p.secrets.refusal(p.workspace, args.Path, false); why != "" {
		return sdk.Errorf(sdk.KindDenied, "%s: %s. It is not shown to the model; do not try to read it another way.", call.Tool, why)
	}
	return nil
}

// pinned returns args with the path the approval was about, for the write
// plugin to compare with the file it opens (nil when nothing is pinned).
func pinned(args json.RawMessage, approved string) json.RawMessage {
	if approved == "" {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	m[ApprovedPathArg], _ = json.Marshal(approved)
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// planBuiltinWrite plans a built-in tool that writes the file its "path"
// argument names: refused on a protected path, otherwise
// what its approval says.
func (p *Pipeline) planBuiltinWrite(req tools.ApprovalRequest) plan {
	var args struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(req.Call.Arguments, &args) == nil {
		if why := p.guard.refusal(p.workspace, args.Path, false); why != "" {
			return plan{kind: session.ActionKindTool, summary: toolSummary(req.Call), scope: []string{toolScope(req.Tool.Spec.Name)}, deny: why}
		}
	}
	return planBlock(req, session.ActionKindTool, fmt.Sprintf("plugin %q", req.Tool.Owner))
}

// planBlock plans a tool whose plugin or mcp block sets approval.
func planBlock(req tools.ApprovalRequest, kind, block string) plan {
	t := req.Tool
	switch t.Approval {
	case config.PolicyAllow:
		return plan{}
	case config.PolicyDeny:
		return plan{kind: kind, summary: toolSummary(req.Call), scope: []string{toolScope(t.Spec.Name)}, deny: block + `: approval = "deny"`}
	}
	reason := block + ` has approval = "ask"`
	if kind == session.ActionKindTool {
		reason = fmt.Sprintf("%s is flagged %s and %s", t.Spec.Name, capabilities(t.Spec.Capabilities), reason)
	}
	return plan{kind: kind, summary: toolSummary(req.Call), scope: []string{toolScope(t.Spec.Name)}, reason: reason}
}

func capabilities(c sdk.Capabilities) string {
	var out []string
	if c.Writes {
		out = append(out, "writes")
	}
	if c.Executes {
		out = append(out, "executes")
	}
	return strings.Join(out, ", ")
}
