package shellpolicy

import (
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// wrapper is a program that runs the command given in its arguments.
type wrapper struct {
	opts     optionSpec
	runner   bool   // a command of its own that allow patterns must cover too (sudo, xargs)
	assigns  bool   // NAME=VALUE words may follow the options (env, sudo)
	operands int    // words between the options and the command (the duration of timeout)
	appends  bool   // the command gets more arguments when it runs (xargs)
	fallback string // the command run when none is given (xargs runs echo)
}

// wrappers are looked through to the command they run. A transparent one
// (not a runner, no opaque option) only changes how the command runs, so allow
// patterns need to cover just the command; deny patterns also see the
// wrapper's own text, so `deny_commands = ["nohup *"]` still works.
var wrappers = sync.OnceValue(func() map[string]*wrapper {
	return map[string]*wrapper{
		"command": {opts: optionSpec{flag: "p", noRun: "vV"}},
		"builtin": {},
		"busybox": {},
		"exec":    {opts: optionSpec{arg: "a", flag: "cl"}},
		"nohup":   {},
		"env": {assigns: true, opts: optionSpec{
			arg: "uCS", flag: "i0v", dash: true, opaque: "CS",
			longArg:    []string{"unset", "chdir", "split-string"},
			longFlag:   []string{"ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal", "list-signal-handling"},
			longOpaque: []string{"chdir", "split-string"},
		}},
		"sudo": {runner: true, assigns: true, opts: optionSpec{
			arg: "CDgpRrTtUu", flag: "AbEeHhiKklnPSsVv", noRun: "ehKlVv",
			longArg: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "type", "command-timeout", "other-user", "user"},
			longFlag: []string{"askpass", "background", "bell", "preserve-env", "edit", "help", "login", "remove-timestamp", "reset-timestamp",
				"list", "non-interactive", "preserve-groups", "stdin", "shell", "version", "validate"},
		}},
		"doas": {runner: true, opts: optionSpec{arg: "uC", flag: "nsL", noRun: "CL"}},
		"nice": {opts: optionSpec{arg: "n", numeric: true, longArg: []string{"adjustment"}}},
		"timeout": {operands: 1, opts: optionSpec{
			arg: "ks", flag: "v",
			longArg:  []string{"kill-after", "signal"},
			longFlag: []string{"preserve-status", "foreground", "verbose"},
		}},
		"time": {opts: optionSpec{
			arg: "fo", flag: "apqv", opaque: "o",
			longArg:    []string{"format", "output"},
			longFlag:   []string{"append", "portability", "quiet", "verbose"},
			longOpaque: []string{"output"},
		}},
		"stdbuf": {opts: optionSpec{arg: "ioe", longArg: []string{"input", "output", "error"}}},
		"ionice": {opts: optionSpec{
			arg: "cnpPu", flag: "t", noRun: "pPu",
			longArg:  []string{"class", "classdata", "pid", "pgid", "uid"},
			longFlag: []string{"ignore"},
		}},
		"setsid": {opts: optionSpec{flag: "cfw", longFlag: []string{"ctty", "fork", "wait"}}},
		"xargs": {runner: true, appends: true, fallback: "echo", opts: optionSpec{
			arg: "adEILnPs", optArg: "eil", flag: "0oprtx",
			longArg:  []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
			longFlag: []string{"null", "no-run-if-empty", "open-tty", "interactive", "verbose", "exit", "show-limits", "eof", "replace", "max-lines"},
		}},
	}
})

// shells run the script given with -c, in their own dialect.
var shells = sync.OnceValue(func() map[string]syntax.LangVariant {
	return map[string]syntax.LangVariant{
		"sh": syntax.LangPOSIX, "dash": syntax.LangPOSIX, "ash": syntax.LangPOSIX,
		"bash": syntax.LangBash, "zsh": syntax.LangZsh,
		"ksh": syntax.LangMirBSDKorn, "mksh": syntax.LangMirBSDKorn,
	}
})

// resolve records cl and every command it runs: through wrappers, find -exec,
// and the scripts of sh -c, eval and trap.
func (c *context) resolve(cl call) {
	for {
		prog := cl.words[0]
		if prog.dynamic {
			c.block("the program of %q is known only when it runs", joinWords(cl.words))
			c.add(cl)
			return
		}
		name := baseName(prog.text)
		if w, ok := wrappers()[name]; ok {
			inner, ok := c.unwrap(name, w, cl)
			if !ok {
				return
			}
			cl = inner
			continue
		}
		c.add(cl)
		c.builtin(name, cl)
		switch {
		case name == "find":
			c.findExec(cl)
		case name == "eval":
			c.eval(cl)
		case name == "trap":
			c.trap(cl)
		case shells()[name] != 0:
			c.shell(shells()[name], cl)
		}
		return
	}
}

// unwrap reads the options of wrapper w and returns the command it runs.
func (c *context) unwrap(name string, w *wrapper, cl call) (call, bool) {
	o := w.opts.parse(cl.words[1:])
	rest := c.assignments(w, o.rest)
	for k := 0; k < w.operands && len(rest) > 0; k++ {
		o.exact = o.exact && !rest[0].dynamic
		rest = rest[1:]
	}
	appends := c.wrapperEffects(name, &o, &rest) && w.appends
	if !o.exact {
		c.block("cannot tell what %q runs", joinWords(cl.words))
	}
	own := w.runner || !o.plain || o.noRun
	if len(rest) == 0 && w.fallback != "" && !o.noRun {
		rest = []word{{text: w.fallback}}
	}
	if own || len(rest) == 0 {
		c.add(cl)
	}
	if o.noRun {
		return call{}, false
	}
	if len(rest) == 0 {
		if cl.tail {
			c.block("the program %q runs comes from its input", joinWords(cl.words))
		}
		return call{}, false
	}
	inner := call{words: rest, tail: cl.tail || appends}
	if !own {
		inner.layers = append(slices.Clip(cl.layers), cl.words)
	}
	return inner, true
}

// assignments skips the NAME=VALUE words of env and sudo, noting the variable.
func (c *context) assignments(w *wrapper, rest []word) []word {
	// env takes every word with = before the command as an assignment,
	// names bash could not use (BASH_FUNC_f%%) included.
	for w.assigns && len(rest) > 0 && !rest[0].dynamic && strings.Contains(rest[0].text, "=") {
		name, _, _ := strings.Cut(rest[0].text, "=")
		c.setVariable(name)
		rest = rest[1:]
	}
	return rest
}

// wrapperEffects applies what some options do besides running the command.
// It reports false when an option stops xargs from appending arguments.
func (c *context) wrapperEffects(name string, o *options, rest *[]word) (appends bool) {
	switch name {
	case "env":
		if v, ok := o.value("u", "unset"); ok {
			c.setVariable(v)
		}
		if _, ok := o.value("C", "chdir"); ok {
			c.changesDir = true
		}
		if v, ok := o.value("S", "split-string"); ok {
			c.block("env -S splits its own command line")
			c.script(v, c.lang, c.depth+1)
		}
	case "sudo":
		if _, ok := o.value("D", "chdir", "R", "chroot", "i", "login"); ok {
			c.changesDir = true
		}
	case "xargs":
		if r, ok := o.value("I", "i", "replace"); ok {
			if r == "" {
				r = "{}"
			}
			*rest = markDynamic(*rest, r)
			return false
		}
	}
	return true
}

// findExec records the commands of -exec, -execdir, -ok and -okdir, each up
// to its ; or +, with {} standing for file names.
func (c *context) findExec(cl call) {
	args := cl.words[1:]
	for i := 0; i < len(args); i++ {
		if args[i].dynamic && (i == 0 || !strings.HasPrefix(args[i-1].text, "-")) {
			// It may expand to -exec and a command.
			c.block("cannot tell what %q runs", joinWords(cl.words))
		}
		switch args[i].text {
		case "-execdir", "-okdir":
			c.changesDir = true
		case "-exec", "-ok":
		default:
			continue
		}
		end := i + 1
		for end < len(args) && !endsExec(args[i+1:end], args[end]) {
			end++
		}
		if end > i+1 {
			c.resolve(call{words: markDynamic(args[i+1:end], "{}")})
		}
		i = end
	}
}

// endsExec reports whether w ends a find -exec command that has cmd so far:
// ";" does, and "+" right after "{}".
func endsExec(cmd []word, w word) bool {
	if w.dynamic {
		return false
	}
	return w.text == ";" || w.text == "+" && len(cmd) > 0 && cmd[len(cmd)-1].text == "{}"
}

// shell scans the script of sh -c SCRIPT and the like.
func (c *context) shell(lang syntax.LangVariant, cl call) {
	script, hasC, exact := shellScript(cl.words[1:])
	if !exact {
		c.block("cannot tell what %q runs", joinWords(cl.words))
	}
	switch {
	case !hasC:
		// Commands from a script file or from standard input (a pipe, a
		// here-document) are invisible here, so no deny rule could catch
		// them: a person must approve.
		c.block("%q runs commands from a script file or its input, which the policy cannot see", joinWords(cl.words))
	case script == nil:
		if cl.tail {
			c.block("the script %q runs comes from its input", joinWords(cl.words))
		}
	case script.dynamic:
		c.block("the script of %q is known only when it runs", joinWords(cl.words))
	default:
		c.script(script.text, lang, c.depth+1)
	}
}

// shellScript finds the script word of a shell's -c option.
func shellScript(args []word) (script *word, hasC, exact bool) {
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if args[i].dynamic {
			// After -c this is the script; before, it may be any option.
			if hasC {
				return &args[i], true, true
			}
			return nil, false, false
		}
		if t == "-" || t == "--" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' && t[0] != '+' {
			break
		}
		if strings.HasPrefix(t, "--") {
			if t == "--rcfile" || t == "--init-file" {
				i++
			}
			continue
		}
		for _, ch := range t[1:] {
			switch ch {
			case 'c':
				hasC = true
			case 'o', 'O':
				i++
			}
		}
	}
	if hasC && i < len(args) {
		return &args[i], true, true
	}
	return nil, hasC, true
}

// eval scans the script eval builds by joining its arguments.
func (c *context) eval(cl call) {
	args := cl.words[1:]
	if len(args) > 0 && args[0].text == "--" {
		args = args[1:]
	}
	if slices.ContainsFunc(args, func(w word) bool { return w.dynamic }) {
		c.block("the script of %q is known only when it runs", joinWords(cl.words))
		return
	}
	if cl.tail {
		c.block("the script of %q gets more words from its input", joinWords(cl.words))
	}
	c.script(strings.Join(texts(args), " "), c.lang, c.depth+1)
}

// trap scans the script of trap SCRIPT SIGNAL…, which runs later in this shell.
func (c *context) trap(cl call) {
	args := cl.words[1:]
	if len(args) > 0 && args[0].text == "--" {
		args = args[1:]
	}
	if len(args) < 2 || !args[0].dynamic && strings.HasPrefix(args[0].text, "-") {
		// trap -p, trap -l, trap - SIGNAL, or trap SIGNAL: nothing to run.
		return
	}
	if args[0].dynamic {
		c.block("the script of %q is known only when it runs", joinWords(cl.words))
		return
	}
	c.script(args[0].text, c.lang, c.depth+1)
}

// markDynamic returns ws with every word containing placeholder marked
// dynamic: xargs and find put file names there.
func markDynamic(ws []word, placeholder string) []word {
	out := slices.Clone(ws)
	for i := range out {
		if strings.Contains(out[i].text, placeholder) {
			out[i].dynamic = true
		}
	}
	return out
}

func joinWords(ws []word) string {
	return strings.Join(texts(ws), " ")
}
