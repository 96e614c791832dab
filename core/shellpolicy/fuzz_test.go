package shellpolicy

import (
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzClassify checks invariants that hold for any input:
//   - an unparsed command is never allowed;
//   - with deny_commands = ["rm *"], a command whose parse shows rm is denied,
//     even under terminal = "allow";
//   - with allow_commands = ["ls *"] and no write globs, an allowed command
//     runs only ls, writes no file and opens no /dev/tcp or /dev/udp path.
func FuzzClassify(f *testing.F) {
	for _, b := range bypasses {
		f.Add(b.command)
	}
	for _, a := range codeAttacks {
		f.Add(a.command)
	}
	ws, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	policies := []Policy{
		{Terminal: "allow", DenyCommands: []string{"rm *"}, Workspace: ws, Dialect: Bash},
		{Terminal: "allow", DenyCommands: []string{"rm *"}, Workspace: ws, Dialect: POSIX},
		{Terminal: "ask", AllowCommands: []string{"ls *"}, Workspace: ws, Dialect: Bash},
		{Terminal: "ask", AllowCommands: []string{"ls *"}, Workspace: ws, Dialect: POSIX},
	}
	f.Fuzz(func(t *testing.T, command string) {
		for _, p := range policies {
			v := Classify(command, p)
			if !v.Parsed && v.Decision == Allow {
				t.Fatalf("Classify(%q) allowed an unparsed command: %s", command, v.Rule)
			}
			checkDenyRm(t, command, p, v)
			checkAllowLs(t, command, p, v)
		}
	})
}

func checkDenyRm(t *testing.T, command string, p Policy, v Verdict) {
	if len(p.DenyCommands) == 0 {
		return
	}
	for _, c := range v.Commands {
		if c.Program == "rm" && v.Decision != Deny {
			t.Fatalf("Classify(%q) = %v %q, but it runs %q", command, v.Decision, v.Rule, c.Text)
		}
	}
}

func checkAllowLs(t *testing.T, command string, p Policy, v Verdict) {
	if len(p.AllowCommands) == 0 || v.Decision != Allow {
		return
	}
	for _, c := range v.Commands {
		if c.Program != "ls" {
			t.Fatalf("Classify(%q) = allow (%s), but it runs %q", command, v.Rule, c.Text)
		}
	}
	if len(v.Writes) > 0 {
		t.Fatalf("Classify(%q) = allow (%s), but it writes %q", command, v.Rule, v.Writes)
	}
	if redirectsToSocket(command) {
		t.Fatalf("Classify(%q) = allow (%s), but it may open a network connection", command, v.Rule)
	}
}

// redirectsToSocket reports whether a redirection of command, read as bash
// reads it, names /dev/tcp or /dev/udp (an argument that does is harmless).
func redirectsToSocket(command string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return false // an unparsed command is never allowed anyway
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && r.Word != nil {
			var b strings.Builder
			_ = syntax.NewPrinter().Print(&b, r.Word)
			found = found || strings.Contains(b.String(), "/dev/tcp") || strings.Contains(b.String(), "/dev/udp")
		}
		return true
	})
	return found
}
