package shellpolicy

import (
	"fmt"
	"strings"

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
	case *syntax.TestClause:
		c.clause("[[", n)
	case *syntax.ArithmCmd:
		c.clause("((", n)
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
		case a.Value != nil && !strings.HasPrefix(a.Value.Lit(), "-"):
			c.setVariable(sourceOf(c.src, a.Value))
		}
		words = append(words, word{text: sourceOf(c.src, a), dynamic: true})
	}
	c.add(call{words: words})
}

// clause records a [[ ]], (( )) or let as a command named by its keyword, so
// that an allow pattern has to cover it like any other command.
func (c *context) clause(keyword string, n syntax.Node) {
	body := strings.TrimSpace(sourceOf(c.src, n))
	body = strings.TrimSpace(strings.TrimPrefix(body, keyword))
	body = strings.TrimSpace(strings.TrimSuffix(body, closing[keyword]))
	words := []word{{text: keyword}}
	if body != "" {
		words = append(words, word{text: body, dynamic: true})
	}
	if end := closing[keyword]; end != "" {
		words = append(words, word{text: end})
	}
	c.add(call{words: words})
}

var closing = map[string]string{"[[": "]]", "((": "))"}

func (c *context) add(cl call) {
	switch baseName(cl.words[0].text) {
	case "cd", "pushd", "popd":
		c.changesDir = true
	case "export", "readonly", "declare", "typeset", "local":
		// Bash parses these as a DeclClause; POSIX sh, or bash after
		// builtin or command, as a plain command.
		for _, a := range cl.words[1:] {
			if a.dynamic || !strings.HasPrefix(a.text, "-") {
				name, _, _ := strings.Cut(a.text, "=")
				c.setVariable(name)
			}
		}
	}
	c.calls = append(c.calls, cl)
}

// redirect records a redirection that writes a file. Duplicating or closing
// a descriptor (2>&1, >&-), reading, here-documents and process substitution
// write nothing.
func (c *context) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
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
	if r.Op == syntax.DplOut && !w.dynamic && isDescriptor(w.text) {
		return
	}
	if !w.dynamic && harmlessDevice[w.text] {
		return
	}
	c.writes = append(c.writes, w)
}

var harmlessDevice = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

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
