package engine

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"

	"github.com/harness-agent/harness/sdk"
)

// compileMatcher turns the pattern of q into a constructor of per-worker
// line matchers.
func compileMatcher(q Query) (func() lineMatcher, error) {
	if !q.Regex && (!q.IgnoreCase || q.Pattern == "") {
		return literalConstructor([]byte(q.Pattern))
	}
	expr := q.Pattern
	if !q.Regex {
		expr = regexp.QuoteMeta(expr)
	}
	if q.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, sdk.Errorf(sdk.KindInvalidArgs,
			"invalid regular expression %q: %v (the syntax is Go RE2; set regex to false to search for the text as typed)",
			q.Pattern, unwrapSyntax(err))
	}
	// regexp.Compile accepted expr, so the parser accepts it too.
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, sdk.Errorf(sdk.KindInternal, "parse regular expression %q: %v", q.Pattern, err)
	}
	tree = tree.Simplify()
	if hasNewline(tree) {
		return nil, newlineError(q.Pattern)
	}
	if tree.Op == syntax.OpLiteral {
		// A regexp without metacharacters is a literal: take a fast path
		// without the regexp.
		if p := literalPiece(tree); !p.fold {
			return literalConstructor(p.text)
		} else if newCaselessLiteralFinder(p.text) != nil {
			return func() lineMatcher {
				f := newCaselessLiteralFinder(p.text)
				return &literalMatcher{find: f, index: f.index}
			}, nil
		}
	}
	pieces := requiredPieces(tree)
	return func() lineMatcher {
		return &regexMatcher{re: re, find: bestFinder(pieces)}
	}, nil
}

func literalConstructor(needle []byte) (func() lineMatcher, error) {
	switch {
	case bytes.IndexByte(needle, '\n') >= 0:
		return nil, newlineError(string(needle))
	case len(needle) == 0:
		return func() lineMatcher { return everyLine{} }, nil
	}
	index := func(line []byte) int { return bytes.Index(line, needle) }
	if len(needle) == 1 {
		return func() lineMatcher { return &literalMatcher{find: byteFinder{b: needle[0]}, index: index} }, nil
	}
	return func() lineMatcher { return &literalMatcher{find: newLiteralFinder(needle), index: index} }, nil
}

func newlineError(pattern string) error {
	return sdk.Errorf(sdk.KindInvalidArgs,
		"pattern %q contains a line break, but the search matches one line at a time; search for one line of it", pattern)
}

// unwrapSyntax drops the "error parsing regexp: " prefix of *syntax.Error
// messages; the caller's message already says what failed.
func unwrapSyntax(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code) + ": `" + se.Expr + "`"
	}
	return err.Error()
}
