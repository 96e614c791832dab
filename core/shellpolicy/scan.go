package shellpolicy

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deep shell scripts nest (sh -c, eval, trap) before the
// policy stops looking and asks.
const maxDepth = 4

// call is one simple command after looking through wrappers.
type call struct {
	words  []word   // program first
	layers [][]word // transparent wrappers around it, outermost first, each from its own program on
	tail   bool     // more arguments are appended when it runs (xargs)
}

// scan collects what a command string would do, across nested scripts.
type scan struct {
	calls      []call
	writes     []word
	blockers   []string // reasons no rule may approve the command
	variable   string   // first variable the command sets, if any
	changesDir bool     // cd and friends: relative targets resolve elsewhere
	parsed     bool
}

// context is one script being scanned: its source, dialect and nesting depth.
type context struct {
	*scan
	src   string
	lang  syntax.LangVariant
	depth int
}

func (s *scan) block(format string, args ...any) {
	s.blockers = append(s.blockers, fmt.Sprintf(format, args...))
}

func (s *scan) setVariable(name string) {
	if s.variable == "" {
		s.variable = name
	}
	if why, ok := codeVariable(name); ok {
		s.block("sets %s, %s", name, why)
	}
}

// codeVariables make a shell run code they hold or name, now or in the
// shells the command starts: BASH_ENV and ENV name a file a shell sources,
// PS4 is expanded (command substitutions included) before every traced
// command, SHELLOPTS and BASHOPTS turn on options such as xtrace in child
// shells. IFS is not here: it changes how values known only when the command
// runs are split, and those values are never trusted anyway.
var codeVariables = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"BASH_ENV":            "a file every non-interactive bash runs first",
		"ENV":                 "a file an interactive sh runs first",
		"PROMPT_COMMAND":      "code the shell runs before each prompt",
		"PS0":                 "a prompt the shell expands, command substitutions included",
		"PS1":                 "a prompt the shell expands, command substitutions included",
		"PS2":                 "a prompt the shell expands, command substitutions included",
		"PS4":                 "a prompt the shell expands before every traced command, command substitutions included",
		"SHELLOPTS":           "options every child bash turns on",
		"BASHOPTS":            "options every child bash turns on",
		"BASH_LOADABLES_PATH": "where enable loads builtins from",
	}
})

// codeVariable reports why setting name lets a shell run code the policy
// cannot see. BASH_FUNC_NAME%% in the environment defines a function in
// every child bash.
func codeVariable(name string) (string, bool) {
	if strings.HasPrefix(name, "BASH_FUNC_") {
		return "which defines a function in every child bash", true
	}
	why, ok := codeVariables()[name]
	if ok {
		why = "which names " + why
	}
	return why, ok
}

// script parses src and scans every statement. Statements that parsed before
// a syntax error are still scanned, so that a denial in them counts.
func (s *scan) script(src string, lang syntax.LangVariant, depth int) {
	if depth > maxDepth {
		s.block("shell scripts nest deeper than %d levels", maxDepth)
		return
	}
	c := &context{scan: s, src: src, lang: lang, depth: depth}
	var stmts []*syntax.Stmt
	parser := syntax.NewParser(syntax.Variant(lang))
	// The loop never breaks: StmtsSeq of mvdan.cc/sh v3.14 yields once more
	// after an error and panics if the loop has stopped. Statements are walked
	// afterwards, once their here-documents have been read.
	complete := true
	for st, err := range parser.StmtsSeq(strings.NewReader(src)) {
		if err != nil {
			complete = false
		}
		if complete {
			stmts = append(stmts, st)
		}
	}
	s.parsed = s.parsed && complete
	for _, st := range stmts {
		syntax.Walk(st, c.visit)
	}
}

// visit is the syntax.Walk callback: it records what each node does and lets
// the walk go on into every child, so that command substitutions, function
// bodies and here-documents are scanned wherever they are.
func (c *context) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		for _, r := range n.Redirs {
			c.redirect(r)
		}
	case *syntax.CallExpr:
		c.callExpr(n)
	case *syntax.DeclClause:
		c.declClause(n)
	case *syntax.WordIter:
		c.setVariable(n.Name.Value)
	case *syntax.LetClause:
		c.clause("let", n)
		c.arithm(n, n.Exprs...)
	case *syntax.TestClause:
		c.clause("[[", n)
	case *syntax.ArithmCmd:
		c.clause("((", n)
		c.arithm(n, n.X)
	case *syntax.ArithmExp:
		c.arithm(n, n.X)
	case *syntax.CStyleLoop:
		c.arithm(n, n.Init, n.Cond, n.Post)
	case *syntax.ParamExp:
		c.paramExp(n)
	case *syntax.Assign:
		c.subscript(n, n.Index)
	case *syntax.ArrayElem:
		c.subscript(n, n.Index)
	case *syntax.BinaryTest:
		c.binaryTest(n)
	case *syntax.UnaryTest:
		c.unaryTest(n)
	case *syntax.Word:
		c.zshGlob(n)
	}
	return true
}

func (c *context) callExpr(ce *syntax.CallExpr) {
	for _, a := range ce.Assigns {
		if a.Name != nil {
			c.setVariable(a.Name.Value)
		}
	}
	if len(ce.Args) == 0 {
		return
	}
	words := make([]word, len(ce.Args))
	for i, w := range ce.Args {
		words[i] = c.wordOf(w)
	}
	c.resolve(call{words: words})
}

// declClause records export, declare, local and the like: they are commands of
// their own and they set variables.
func (c *context) declClause(d *syntax.DeclClause) {
	words := []word{{text: d.Variant.Value}}
	for _, a := range d.Args {
		switch {
		case a.Name != nil:
			c.setVariable(a.Name.Value)
		case a.Value != nil:
			w := c.wordOf(a.Value)
			c.declArg(d.Variant.Value, w)
			if w.dynamic || !isOption(w.text) {
				c.setVariable(w.text)
			}
		}
		words = append(words, word{text: sourceOf(c.src, a), dynamic: true})
	}
	c.calls = append(c.calls, call{words: words})
}

// declArg checks one argument of declare and the like that is not a plain
// NAME=VALUE: -i makes later assignments arithmetic, -n makes a name refer
// to another (subscript and all), and a name known only when it runs may
// hold a subscript bash evaluates.
func (c *context) declArg(builtin string, w word) {
	switch {
	case !w.dynamic && isOption(w.text) && builtin != "export" && strings.ContainsAny(w.text, "in"):
		c.block("%s %s makes bash evaluate later values of a variable as arithmetic or as a variable name", builtin, w.text)
	case w.dynamic:
		c.block("%s %s uses a variable name known only when it runs, which may hold an array subscript bash evaluates", builtin, w.text)
	default:
		name, _, _ := strings.Cut(w.text, "=")
		if !isOption(w.text) && !plainName(name) {
			c.block("%s %s uses a variable name with an array subscript bash evaluates", builtin, w.text)
		}
	}
}

// clause records a [[ ]], (( )) or let as a command named by its keyword, so
// that an allow pattern has to cover it like any other command.
func (c *context) clause(keyword string, n syntax.Node) {
	body := strings.TrimSpace(sourceOf(c.src, n))
	body = strings.TrimSpace(strings.TrimPrefix(body, keyword))
	body = strings.TrimSpace(strings.TrimSuffix(body, closing()[keyword]))
	words := []word{{text: keyword}}
	if body != "" {
		words = append(words, word{text: body, dynamic: true})
	}
	if end := closing()[keyword]; end != "" {
		words = append(words, word{text: end})
	}
	c.add(call{words: words})
}

var closing = sync.OnceValue(func() map[string]string { return map[string]string{"[[": "]]", "((": "))"} })

func (c *context) add(cl call) {
	switch baseName(cl.words[0].text) {
	case "cd", "pushd", "popd":
		c.changesDir = true
	case "export", "readonly", "declare", "typeset", "local":
		// Bash parses these as a DeclClause; POSIX sh, or bash after
		// builtin or command, as a plain command.
		for _, a := range cl.words[1:] {
			c.declArg(cl.words[0].text, a)
			if a.dynamic || !strings.HasPrefix(a.text, "-") {
				name, _, _ := strings.Cut(a.text, "=")
				c.setVariable(name)
			}
		}
	}
	c.optionWrites(cl)
	c.calls = append(c.calls, cl)
}

// writeOptions are options with which a program an allow pattern may cover
// ("git diff *") writes the file they name, as a redirection would:
// `git diff --output=~/.bashrc`.
var writeOptions = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"git":  {"--output"},
		"sort": {"-o", "--output"},
	}
})

// runOptions are options with which such a program runs another program
// the repository's configuration names.
var runOptions = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"git": {"--ext-diff"},
	}
})

// optionWrites records the files cl writes through writeOptions as writes,
// so that they are checked like redirection targets (outside the workspace
// denied, inside only under permissions.write, protected paths refused),
// and blocks runOptions.
func (c *context) optionWrites(cl call) {
	prog := baseName(cl.words[0].text)
	opts, runs := writeOptions()[prog], runOptions()[prog]
	if opts == nil && runs == nil {
		return
	}
	args := cl.words[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.dynamic && a.text == "--" {
			return
		}
		for _, o := range runs {
			if !a.dynamic && (a.text == o || strings.HasPrefix(a.text, o+"=")) {
				c.block("%s %s runs a program the repository's configuration names", prog, a.text)
			}
		}
		for _, o := range opts {
			switch {
			case !a.dynamic && a.text == o && i+1 < len(args):
				c.writes = append(c.writes, args[i+1])
				i++
			case !a.dynamic && strings.HasPrefix(a.text, o+"="):
				c.writes = append(c.writes, word{text: strings.TrimPrefix(a.text, o+"=")})
			case !a.dynamic && len(o) == 2 && strings.HasPrefix(a.text, o) && len(a.text) > 2 && !strings.HasPrefix(a.text, "--"):
				c.writes = append(c.writes, word{text: a.text[2:]})
			case a.dynamic:
				// It may be such an option: a write to a place known
				// only when it runs.
				c.writes = append(c.writes, a)
			}
		}
	}
}

// redirect records a redirection that writes a file, and blocks one that
// opens a network connection or reads from a place known only when it runs.
// Duplicating or closing a descriptor (2>&1, >&-, <&3), here-documents and
// process substitution write nothing.
func (c *context) redirect(r *syntax.Redirect) {
	writes := false
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
		writes = true
	case syntax.RdrIn, syntax.DplIn: // <&WORD reads WORD when it is not a descriptor: <&/dev/tcp/h/p connects
	default:
		return
	}
	if r.Word == nil {
		return
	}
	if len(r.Word.Parts) == 1 {
		if _, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
			return
		}
	}
	w := c.wordOf(r.Word)
	if socket(w.text) {
		c.block("%q opens a network connection (bash's /dev/tcp and /dev/udp)", sourceOf(c.src, r))
	}
	switch {
	case !writes:
		if w.dynamic {
			c.block("where %q reads from is known only when it runs, and may be a network connection", sourceOf(c.src, r))
		}
	case r.Op == syntax.DplOut && !w.dynamic && isDescriptor(w.text), !w.dynamic && harmlessDevice()[w.text]:
	default:
		c.writes = append(c.writes, w)
	}
}

// socket reports whether a redirection target may name one of bash's
// network paths, /dev/tcp/HOST/PORT or /dev/udp/HOST/PORT. bash matches the
// text as written, but a lexically equivalent spelling is refused too.
func socket(target string) bool {
	clean := path.Clean(target)
	for _, dev := range []string{"/dev/tcp", "/dev/udp"} {
		if strings.Contains(target, dev) || clean == dev || strings.HasPrefix(clean, dev+"/") {
			return true
		}
	}
	return false
}

var harmlessDevice = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}
})

func isDescriptor(s string) bool {
	return s == "-" || isNumber(strings.TrimSuffix(s, "-"))
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
