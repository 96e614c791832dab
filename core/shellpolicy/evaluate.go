package shellpolicy

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Values the shell evaluates as code. bash evaluates the text of a variable
// used in arithmetic as an arithmetic expression again, and an array
// subscript in such an expression runs the command substitutions it holds:
// with x='a[$(touch X)]', $((x)), [[ $x -eq 1 ]], ${a[x]}, ${!x} and
// printf -v "$x" all run touch. So everything that is evaluated that way is
// a blocker unless every operand is a literal number.

// arithmNote ends the reason of every arithmetic blocker.
const arithmNote = "evaluates arithmetic on a value known only when it runs (bash runs the commands of an array subscript in it)"

// numeral is an integer constant as bash arithmetic reads it: decimal,
// octal, 0x hexadecimal or BASE#DIGITS.
var numeral = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)$`) })

// literalArithm reports whether every operand of x is a literal number.
func literalArithm(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.BinaryArithm:
		return literalArithm(x.X) && literalArithm(x.Y)
	case *syntax.UnaryArithm:
		return literalArithm(x.X)
	case *syntax.ParenArithm:
		return literalArithm(x.X)
	case *syntax.Word:
		return isNumeral(x)
	}
	return false
}

// isNumeral reports whether w is a number written out, nothing expanded.
func isNumeral(w *syntax.Word) bool {
	v, ok := staticValue(w, syntax.LangBash)
	return ok && numeral().MatchString(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+"))
}

// arithm blocks the arithmetic x, found in node n, unless it is literal.
func (c *context) arithm(n syntax.Node, xs ...syntax.ArithmExpr) {
	for _, x := range xs {
		if !literalArithm(x) {
			c.block("%q %s", sourceOf(c.src, n), arithmNote)
			return
		}
	}
}

// subscript blocks an array subscript unless it is a literal number, @ or *.
func (c *context) subscript(n syntax.Node, index syntax.ArithmExpr) {
	if index == nil {
		return
	}
	if w, ok := index.(*syntax.Word); ok && (w.Lit() == "@" || w.Lit() == "*") {
		return
	}
	c.arithm(n, index)
}

// paramExp checks a parameter expansion: its subscript and slice are
// arithmetic, ${!x} reads the variable whose name x holds (subscript and
// all), ${x@P} expands x as a prompt (command substitutions included), and
// a zsh flag such as (e) evaluates the value again.
func (c *context) paramExp(p *syntax.ParamExp) {
	c.subscript(p, p.Index)
	if p.Slice != nil {
		c.arithm(p, p.Slice.Offset, p.Slice.Length)
	}
	src := sourceOf(c.src, p)
	switch {
	case p.Excl && p.Names == 0 && p.Index == nil:
		c.block("%q reads the variable named by a value known only when it runs, and bash evaluates its subscript", src)
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P"):
		c.block("%q expands a value as a prompt, which runs the commands it holds", src)
	case p.Flags != nil:
		c.block("%q uses zsh expansion flags, which may evaluate the value as code", src)
	}
	if p.Exp != nil && p.Param != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) {
		c.setVariable(p.Param.Value)
	}
}

// binaryTest checks both sides of the arithmetic comparisons of [[ ]]
// (-eq, -lt and the others), which bash evaluates as arithmetic.
func (c *context) binaryTest(b *syntax.BinaryTest) {
	switch b.Op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		for _, side := range []syntax.TestExpr{b.X, b.Y} {
			if w, ok := side.(*syntax.Word); !ok || !isNumeral(w) {
				c.block("%q %s", sourceOf(c.src, b), arithmNote)
				return
			}
		}
	}
}

// unaryTest checks the name [[ -v ]] and [[ -R ]] look up.
func (c *context) unaryTest(u *syntax.UnaryTest) {
	if u.Op != syntax.TsVarSet && u.Op != syntax.TsRefVar {
		return
	}
	if w, ok := u.X.(*syntax.Word); ok && plainName(w.Lit()) {
		return
	}
	c.block("%q looks up a variable by a name that may hold an array subscript, which bash evaluates", sourceOf(c.src, u))
}

// plainName reports whether s names a variable without a subscript that
// bash would evaluate: NAME or NAME[NUMBER].
func plainName(s string) bool {
	name, sub, ok := strings.Cut(s, "[")
	if !ok {
		return syntax.ValidName(s)
	}
	sub, closed := strings.CutSuffix(sub, "]")
	return closed && syntax.ValidName(name) && numeral().MatchString(sub)
}

// zshGlob blocks the glob qualifiers of zsh, *(e:'cmd':), which run code.
func (c *context) zshGlob(w *syntax.Word) {
	if c.lang != syntax.LangZsh {
		return
	}
	for _, part := range w.Parts {
		if lit, ok := part.(*syntax.Lit); ok && strings.Contains(lit.Value, "(") {
			c.block("%q may hold a zsh glob qualifier, which can run code", sourceOf(c.src, w))
			return
		}
	}
}
