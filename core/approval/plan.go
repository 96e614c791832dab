package approval

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/shellpolicy"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Built-in tools the pipeline knows by name.
const (
	terminalTool  = "terminal"
	writeFileTool = "write_file"
)

// plan is what the rules say about one call before anyone is asked.
type plan struct {
	kind      string // "" runs directly
	summary   string
	signature string // what an "always" answer covers
	deny      string // a hard denial's rule
	allow     string // an allow rule's name
	reason    string // why a hook, a person or --yes must decide
	parsed    bool   // terminal: the command parsed; rules may approve it
}

// plan classifies a call: direct, or a proposed action and what the rules
// say about it. An error refuses the call before any action exists.
func (p *Pipeline) plan(req tools.ApprovalRequest) (plan, *sdk.Error) {
	t := req.Tool
	switch {
	case t.Origin == tools.OriginBuiltin && t.Spec.Name == terminalTool:
		return p.planTerminal(req.Call)
	case t.Origin == tools.OriginBuiltin && t.Spec.Name == writeFileTool:
		return p.planWrite(req.Call)
	case t.Origin == tools.OriginMCP:
		return planBlock(req, KindMCP, fmt.Sprintf("mcp %q", t.Owner)), nil
	case t.Spec.Writes || t.Spec.Executes:
		return planBlock(req, KindTool, fmt.Sprintf("plugin %q", t.Owner)), nil
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
	pl := plan{kind: KindTerminal, summary: oneLine(args.Command), signature: terminalSignature(args.Command, v), parsed: v.Parsed}
	switch v.Decision {
	case shellpolicy.Deny:
		pl.deny = v.Rule
	case shellpolicy.Allow:
		pl.allow = v.Rule
	default:
		pl.reason = v.Rule
	}
	return pl, nil
}

// terminalSignature is what "always" covers: the simple commands a parsed
// command runs, or the exact text of one that did not parse.
func terminalSignature(command string, v shellpolicy.Verdict) string {
	if !v.Parsed {
		return "terminal\x00unparsed\x00" + command
	}
	texts := make([]string, len(v.Commands))
	for i, c := range v.Commands {
		texts[i] = c.Text
	}
	return "terminal\x00" + strings.Join(texts, "\x00")
}

func (p *Pipeline) planWrite(call sdk.Call) (plan, *sdk.Error) {
	var args struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return plan{}, sdk.Errorf(sdk.KindInvalidArgs, "write_file: arguments: %v", err)
	}
	rel, err := workspacePath(p.workspace, args.Path)
	if err != nil {
		return plan{}, sdk.Errorf(sdk.KindPathEscape, "write_file: %q is %v %s; write inside the workspace", args.Path, err, p.workspace)
	}
	if shellpolicy.MatchWriteGlob(rel, p.perm.Write) != "" {
		return plan{}, nil
	}
	reason := fmt.Sprintf("%s is outside permissions.write", rel)
	if len(p.perm.Write) > 0 {
		reason += " (" + strings.Join(p.perm.Write, ", ") + ")"
	}
	return plan{
		kind:      KindWriteFile,
		summary:   writeSummary(p.workspace, rel, args.Content),
		signature: writeFileTool,
		reason:    reason,
	}, nil
}

// planBlock plans a tool whose plugin or mcp block sets approval.
func planBlock(req tools.ApprovalRequest, kind, block string) plan {
	t := req.Tool
	switch t.Approval {
	case config.PolicyAllow:
		return plan{}
	case config.PolicyDeny:
		return plan{kind: kind, summary: toolSummary(req.Call), signature: t.Spec.Name, deny: block + `: approval = "deny"`}
	}
	reason := block + ` has approval = "ask"`
	if kind == KindTool {
		reason = fmt.Sprintf("%s is flagged %s and %s", t.Spec.Name, capabilities(t.Spec.Capabilities), reason)
	}
	return plan{kind: kind, summary: toolSummary(req.Call), signature: t.Spec.Name, reason: reason}
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
