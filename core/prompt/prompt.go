package prompt

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/harness-agent/harness/core/config"
)

//go:embed preamble.md
var preamble string

// Segment is one part of a system prompt.
type Segment struct {
	Name  string
	Order int
	Text  string
}

// Segment orders: stable content first.
const (
	OrderPreamble = 10
	OrderPersona  = 20
	OrderPolicy   = 30
	OrderSystem   = 40
	OrderTools    = 50
)

// Assemble sorts segments by order (then name), drops empty ones and joins
// them with blank lines.
func Assemble(segs []Segment) string {
	sorted := append([]Segment(nil), segs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Order != sorted[j].Order {
			return sorted[i].Order < sorted[j].Order
		}
		return sorted[i].Name < sorted[j].Name
	})
	parts := make([]string, 0, len(sorted))
	for _, s := range sorted {
		if t := strings.TrimSpace(s.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// Tool is a tool as the prompt's table shows it.
type Tool struct {
	Name        string
	Description string
}

// System returns the system prompt of an agent whose whitelisted tools are
// tools, when hidden more tools exist that it may not use.
func System(a *config.Agent, tools []Tool, hidden int) string {
	return Assemble([]Segment{
		{Name: "preamble", Order: OrderPreamble, Text: preamble},
		{Name: "persona", Order: OrderPersona, Text: a.Persona},
		{Name: "policy", Order: OrderPolicy, Text: Policy(a.Permissions, hasTool(tools, config.TerminalTool), hasTool(tools, config.WriteFileTool) || hasTool(tools, config.EditFileTool))},
		{Name: "system", Order: OrderSystem, Text: a.System},
		{Name: "tools", Order: OrderTools, Text: toolTable(tools, hidden)},
	})
}

func hasTool(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Policy describes an agent's permissions to the model: what it may do
// directly and what needs a person's approval.
func Policy(p config.Permissions, terminal, write bool) string {
	var b strings.Builder
	b.WriteString("## What you may do\n")
	b.WriteString("- Every file path is relative to the workspace; paths that leave it are refused.\n")
	if write {
		if len(p.Write) > 0 {
			fmt.Fprintf(&b, "- You may write files matching %s directly; other writes in the workspace need a person's approval.\n", quoteList(p.Write))
		} else {
			b.WriteString("- Every file write needs a person's approval.\n")
		}
	}
	if terminal {
		switch p.Terminal {
		case "deny":
			b.WriteString("- Terminal commands are not allowed.\n")
		case "allow":
			b.WriteString("- Terminal commands run without approval.\n")
		default:
			if len(p.AllowCommands) > 0 {
				fmt.Fprintf(&b, "- Terminal commands matching %s run directly; any other command needs a person's approval.\n", quoteList(p.AllowCommands))
			} else {
				b.WriteString("- Every terminal command needs a person's approval.\n")
			}
		}
		if len(p.DenyCommands) > 0 && p.Terminal != "deny" {
			fmt.Fprintf(&b, "- Commands matching %s are always refused; do not try to work around this.\n", quoteList(p.DenyCommands))
		}
	}
	if p.Unattended == "defer" {
		b.WriteString("- When nobody can approve an action at once, it waits for approval: carry on with other work.\n")
	}
	b.WriteString("- A denied action is final for this request: explain what you needed instead of retrying it.")
	return b.String()
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}

func toolTable(tools []Tool, hidden int) string {
	if len(tools) == 0 && hidden == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Your tools\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "- `%s`: %s\n", t.Name, firstSentence(t.Description))
	}
	if hasTool(tools, config.EditFileTool) && hasTool(tools, config.WriteFileTool) {
		b.WriteString("- Change part of a file with `edit_file`; use `write_file` only to create a file or replace all of it.\n")
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "- %d other tools exist but are not available to you.\n", hidden)
	}
	return b.String()
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// TaskMessage wraps a user's task with the session facts the model may
// need; they travel here so that the system prompt stays byte-stable.
func TaskMessage(task, date, workspace string) string {
	return fmt.Sprintf("%s\n\n<session date=%q workspace=%q />", strings.TrimSpace(task), date, workspace)
}
