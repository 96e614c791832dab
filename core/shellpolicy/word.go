package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as the policy sees it.
type word struct {
	text    string // the value without quotes when static, else the source text
	dynamic bool   // the value is known only when the shell runs it
	splits  bool   // it may become several words or none: an unquoted expansion or glob
}

// wordOf reads w, which comes from src: static words (literals and quotes,
// nothing the shell expands) get their value, all others their source text.
func (c *context) wordOf(w *syntax.Word) word {
	src := sourceOf(c.src, w)
	if c.lang != syntax.LangPOSIX {
		// SplitBraces rewrites the word it is given; the walk still needs the
		// original, so it gets a copy.
		split := *w
		if syntax.SplitBraces(&split) {
			w = &split
		}
	}
	if v, ok := staticValue(w, c.lang); ok {
		return word{text: v}
	}
	return word{text: src, dynamic: true, splits: maySplit(w)}
}

// maySplit reports whether the dynamic word w may expand to several words or
// none: only quoted expansions and plain literals stay one word.
func maySplit(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
		case *syntax.Lit:
			if hasGlob(p.Value) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// sourceOf returns the text of n in src.
func sourceOf(src string, n syntax.Node) string {
	start, end := n.Pos(), n.End()
	if start.IsValid() && end.IsValid() && start.Offset() <= end.Offset() && end.Offset() <= uint(len(src)) {
		return src[start.Offset():end.Offset()]
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

// staticValue returns the value of w if the shell would not expand anything in
// it: no parameters, substitutions, arithmetic, globs, braces or tildes.
func staticValue(w *syntax.Word, lang syntax.LangVariant) (string, bool) {
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && (strings.HasPrefix(p.Value, "~") || lang == syntax.LangZsh && strings.HasPrefix(p.Value, "=")) {
				return "", false
			}
			if hasGlob(p.Value) || endsInDollar(p.Value) && i+1 < len(w.Parts) {
				return "", false
			}
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if !p.Dollar {
				b.WriteString(p.Value)
				continue
			}
			// A fresh Config each time: expand.Literal(nil, …) writes to a
			// package-level default, a data race when commands are
			// classified concurrently.
			v, err := expand.Literal(&expand.Config{}, &syntax.Word{Parts: []syntax.WordPart{p}})
			if err != nil {
				return "", false
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes the shell removes: every one outside
// quotes, and inside double quotes only those before $ ` " \ or a newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		if quoted && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte('\\')
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

// hasGlob reports whether an unquoted literal holds a pattern character the
// shell may expand to file names: * or ?, or [ with a later ].
func hasGlob(s string) bool {
	open := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			open = true
		case ']':
			if open {
				return true
			}
		}
	}
	return false
}

// endsInDollar reports whether s ends in an unescaped $, which before a quote
// is $'…' or $"…": quoting the POSIX parser keeps literal but newer shells
// expand.
func endsInDollar(s string) bool {
	n := 0
	for i := len(s) - 2; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return strings.HasSuffix(s, "$") && n%2 == 0
}

// texts returns the text of each word.
func texts(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}

// baseName is the program name a path runs: what follows the last slash.
func baseName(program string) string {
	if i := strings.LastIndexByte(program, '/'); i >= 0 && i+1 < len(program) {
		return program[i+1:]
	}
	return program
}
