package shellpolicy

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Classify decides command under p: hard denials first, then the allow rules,
// otherwise Ask. See the package documentation for the rules.
func Classify(command string, p Policy) Verdict {
	s := &scan{parsed: true}
	lang := syntax.LangPOSIX
	if p.Dialect == Bash {
		lang = syntax.LangBash
	}
	s.script(command, lang, 0)
	if p.Dialect == POSIX {
		// sh is bash on some systems, and bash in POSIX mode still has
		// $[ ], [[ ]] and arrays: what bash would evaluate as code blocks
		// an sh command too.
		asBash := &scan{parsed: true}
		asBash.script(command, syntax.LangBash, 0)
		s.blockers = append(s.blockers, asBash.blockers...)
	}

	v := Verdict{Parsed: s.parsed, Commands: make([]SimpleCommand, len(s.calls))}
	for i, cl := range s.calls {
		v.Commands[i] = cl.simple()
	}
	for _, w := range s.writes {
		v.Writes = append(v.Writes, w.text)
	}
	targets := s.locateWrites(p.Workspace)
	v.Decision, v.Rule = decide(s, targets, p)
	return v
}

func decide(s *scan, targets []target, p Policy) (Decision, string) {
	deny := compilePatterns(p.DenyCommands)
	for _, cl := range s.calls {
		if pat, ok := cl.denied(deny); ok {
			return Deny, fmt.Sprintf("deny_commands %q", pat)
		}
	}
	if p.Terminal == "deny" {
		return Deny, `terminal = "deny"`
	}
	for _, t := range targets {
		if t.place == outsidePlace {
			return Deny, "redirection outside workspace: " + t.written
		}
	}
	if !s.parsed {
		return Ask, "unparsable"
	}
	if reason := blocker(s, targets, deny); reason != "" {
		return Ask, "needs approval: " + reason
	}
	reason := allowCommandsGap(s, targets, compilePatterns(p.AllowCommands), p.WriteGlobs)
	switch {
	case reason == "":
		return Allow, "allow_commands"
	case p.Terminal == "allow":
		return Allow, `terminal = "allow"`
	}
	return Ask, "needs approval: " + reason
}

// blocker returns why no rule may approve the command: something it runs or
// writes is known only when it runs, or a deny pattern could match then.
func blocker(s *scan, targets []target, deny []pattern) string {
	if len(s.blockers) > 0 {
		return s.blockers[0]
	}
	for _, cl := range s.calls {
		if pat, ok := cl.mayBeDenied(deny); ok {
			return fmt.Sprintf("%q may match deny_commands %q once expanded", cl.writtenText(), pat)
		}
	}
	for _, t := range targets {
		if t.place == unknownPlace {
			return fmt.Sprintf("where %s writes is known only when it runs", t.written)
		}
	}
	return ""
}

// allowCommandsGap returns why allow_commands do not approve the command, or
// "" if they do.
func allowCommandsGap(s *scan, targets []target, allow []pattern, writeGlobs []string) string {
	if len(s.calls) == 0 {
		return "no command for allow_commands to cover"
	}
	for _, cl := range s.calls {
		if !cl.allowed(allow) {
			return fmt.Sprintf("%q matches no allow_commands", cl.writtenText())
		}
	}
	if s.variable != "" {
		return fmt.Sprintf("sets variable %s, which allow_commands never approve", s.variable)
	}
	for _, t := range targets {
		if MatchWriteGlob(t.rel, writeGlobs) == "" {
			return fmt.Sprintf("write to %s is outside permissions.write", t.written)
		}
	}
	return ""
}

func (s *scan) locateWrites(workspace string) []target {
	if len(s.writes) == 0 {
		return nil
	}
	if filepath.IsAbs(workspace) {
		if real, err := RealPath(workspace); err == nil {
			workspace = real
		}
	}
	out := make([]target, len(s.writes))
	for i, w := range s.writes {
		out[i] = locate(w, workspace, s.changesDir)
	}
	return out
}

// simple is the call as shown to people.
func (cl call) simple() SimpleCommand {
	program := cl.words[0].text
	if !cl.words[0].dynamic {
		program = baseName(program)
	}
	args := texts(cl.words[1:])
	return SimpleCommand{Program: program, Args: args, Text: strings.Join(append([]string{program}, args...), " ")}
}

// writtenText is the call's text with the program as written, path and all.
func (cl call) writtenText() string {
	return joinWords(cl.words)
}

// denied reports the first deny pattern that matches the call's text, with
// the program by base name or as written, or the text of a wrapper around it.
func (cl call) denied(deny []pattern) (string, bool) {
	for _, ws := range cl.variants() {
		for _, program := range programNames(ws[0]) {
			s := newSubject(program, ws[1:], false)
			s.kinds = nil
			for _, p := range deny {
				for _, form := range p.forms {
					if match(form, s) {
						return p.source, true
					}
				}
			}
		}
	}
	return "", false
}

// mayBeDenied reports a deny pattern that could match once the call's
// expansions, and the arguments xargs appends, are known.
func (cl call) mayBeDenied(deny []pattern) (string, bool) {
	for _, ws := range cl.variants() {
		if !ws[0].dynamic && !cl.tail && !hasDynamic(ws[1:]) {
			continue
		}
		for _, program := range programNames(ws[0]) {
			text := holes(program, ws[1:], cl.tail)
			for _, p := range deny {
				for _, form := range p.forms {
					if overlaps(form, text) {
						return p.source, true
					}
				}
			}
		}
	}
	return "", false
}

// allowed reports whether an allow pattern covers the call for every value
// its expansions may take. The program counts as written: a path such as
// ./ls may name a file the agent wrote, so "ls *" does not cover it.
func (cl call) allowed(allow []pattern) bool {
	program := cl.words[0].text
	if cl.words[0].dynamic || strings.ContainsFunc(program, isSpace) {
		return false
	}
	covered := func(tail bool) bool {
		s := newSubject(program, cl.words[1:], tail)
		for _, p := range allow {
			for _, form := range p.forms {
				if match(form, s) {
					return true
				}
			}
		}
		return false
	}
	return covered(false) && (!cl.tail || covered(true))
}

// variants are the word lists deny patterns see: the call and each wrapper
// around it.
func (cl call) variants() [][]word {
	return append([][]word{cl.words}, cl.layers...)
}

// programNames are the names a program word is matched by: its base name and,
// for a path, the path as written.
func programNames(w word) []string {
	if w.dynamic {
		return []string{w.text}
	}
	if base := baseName(w.text); base != w.text {
		return []string{base, w.text}
	}
	return []string{w.text}
}

func hasDynamic(ws []word) bool {
	for _, w := range ws {
		if w.dynamic {
			return true
		}
	}
	return false
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}
