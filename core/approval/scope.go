package approval

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/shellpolicy"
)

// A remembered approval ("always") is a scope key: `terminal:PATTERN` (a
// pattern over one simple command, matched like allow_commands),
// `terminal-unparsed:COMMAND` (the exact text of a command that did not
// parse), `write_file:PATH` (one workspace path) or `tool:NAME`. The keys of
// an "always" are recorded in its action.decided event (remember), so a
// resumed session remembers them too.
const (
	scopeTerminal   = "terminal:"
	scopeUnparsed   = "terminal-unparsed:"
	scopeWriteFile  = "write_file:"
	scopeTool       = "tool:"
	scopeNoteSuffix = " in this session"
)

// subcommandPrograms take a subcommand as their first argument; "always"
// for `git status` covers `git status *`, not every git command.
var subcommandPrograms = map[string]bool{
	"git": true, "go": true, "npm": true, "npx": true, "pnpm": true, "yarn": true, "cargo": true,
	"docker": true, "kubectl": true, "pip": true, "pip3": true, "apt": true, "apt-get": true,
	"brew": true, "systemctl": true, "gh": true, "terraform": true, "helm": true, "uv": true,
	"poetry": true, "bundle": true, "rails": true, "dotnet": true, "mvn": true, "gradle": true,
}

// commandPattern is what "always" covers of one simple command: the exact
// program, with its subcommand for the programs that have them, and any
// arguments (`echo *`, `git status *`); a command without arguments covers
// itself only.
func commandPattern(c shellpolicy.SimpleCommand) string {
	if len(c.Args) == 0 {
		return c.Program
	}
	if subcommandPrograms[c.Program] && plainWord(c.Args[0]) {
		return c.Program + " " + c.Args[0] + " *"
	}
	return c.Program + " *"
}

func plainWord(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':' || r == '.') {
			return false
		}
	}
	return true
}

// terminalScope is the keys an "always" for a terminal command remembers.
func terminalScope(command string, v shellpolicy.Verdict) []string {
	if !v.Parsed || len(v.Commands) == 0 {
		return []string{scopeUnparsed + command}
	}
	seen := map[string]bool{}
	var keys []string
	for _, c := range v.Commands {
		k := scopeTerminal + commandPattern(c)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// DescribeScope is a scope key (or several) as people read it:
// "`echo *` in this session".
func DescribeScope(keys []string) string {
	var parts []string
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k, scopeTerminal):
			parts = append(parts, "`"+strings.TrimPrefix(k, scopeTerminal)+"`")
		case strings.HasPrefix(k, scopeUnparsed):
			parts = append(parts, "exactly `"+strings.TrimPrefix(k, scopeUnparsed)+"`")
		case strings.HasPrefix(k, scopeWriteFile):
			parts = append(parts, "writing "+strings.TrimPrefix(k, scopeWriteFile))
		case strings.HasPrefix(k, scopeTool):
			parts = append(parts, "every call of "+strings.TrimPrefix(k, scopeTool))
		default:
			parts = append(parts, k)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " and ") + scopeNoteSuffix
}

// remembers is the set of scopes a person approved for the session.
type remembers map[string]bool

// patterns returns the remembered terminal patterns, sorted.
func (r remembers) patterns() []string {
	var out []string
	for k := range r {
		if p, ok := strings.CutPrefix(k, scopeTerminal); ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// writeScope is the key of a write to rel (slash-separated, in the
// workspace).
func writeScope(rel string) string { return scopeWriteFile + path.Clean(rel) }

func toolScope(name string) string { return scopeTool + name }

// ruleAlwaysFor is the rule of an action.decided approved by "always".
func ruleAlwaysFor(keys []string) string {
	if len(keys) == 0 {
		return ruleAlways
	}
	return fmt.Sprintf("always for %s", DescribeScope(keys))
}

// RememberedScopes returns the scopes the "always" answers recorded in a
// session's events approved, in order, without repeats.
func RememberedScopes(events []session.Event) []string {
	seen := map[string]bool{}
	var out []string
	for _, ev := range events {
		if ev.Type != event.TypeActionDecided {
			continue
		}
		data, err := event.Decode(ev)
		if err != nil {
			continue
		}
		d := data.(event.ActionDecided)
		for _, k := range d.Remember {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
