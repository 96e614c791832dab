package shellpolicy

import (
	"fmt"
	"path/filepath"
)

// Policy is the part of an agent's permissions that governs terminal commands.
type Policy struct {
	Terminal      string   // "allow" | "ask" | "deny"; anything else counts as "ask"
	AllowCommands []string // patterns over a whole simple command, e.g. "go test ./...", "ls *"
	DenyCommands  []string // e.g. "rm *", "git push *"
	Workspace     string   // absolute, symlinks resolved; if empty, every file redirection is asked
	WriteGlobs    []string // permissions.write: doublestar globs relative to the workspace
	Dialect       Dialect  // the shell that will run the command
}

// Dialect is the shell language a command is parsed in.
type Dialect int

const (
	// POSIX is sh as POSIX defines it (dash and friends). It is the zero value
	// because it is the strictest: bash-only syntax does not parse in it, and a
	// command that does not parse is never approved by a rule.
	POSIX Dialect = iota
	// Bash is GNU bash.
	Bash
)

// DialectFor picks the dialect for the shell at shellPath: Bash for a program
// named bash, POSIX for everything else.
func DialectFor(shellPath string) Dialect {
	if filepath.Base(shellPath) == "bash" {
		return Bash
	}
	return POSIX
}

// Decision is the outcome of classifying a command.
type Decision int

const (
	// Deny refuses the command; nobody is asked.
	Deny Decision = iota
	// Allow runs the command without asking.
	Allow
	// Ask leaves the decision to a hook, a person or --yes.
	Ask
)

func (d Decision) String() string {
	switch d {
	case Deny:
		return "deny"
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Verdict is the classification of one command string.
type Verdict struct {
	Decision Decision
	// Rule names what decided, for the action.decided event and for people:
	// `deny_commands "rm *"`, `terminal = "deny"`,
	// `redirection outside workspace: ../f`, `allow_commands`,
	// `terminal = "allow"`, `unparsable`, or `needs approval: …` with the
	// first reason no rule could approve the command.
	Rule     string
	Commands []SimpleCommand // every simple command found, in source order
	Writes   []string        // file redirection targets as written, harmless devices left out
	Parsed   bool            // the command and every nested shell script parsed completely
}

// SimpleCommand is one program invocation found in a command string.
type SimpleCommand struct {
	Program string   // base name, after looking through wrappers such as sudo or env
	Args    []string // arguments without quotes; words with expansions as written
	Text    string   // Program and Args joined by single spaces: what patterns match
}
