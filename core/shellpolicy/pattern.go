package shellpolicy

import "strings"

// pattern is one entry of allow_commands or deny_commands.
type pattern struct {
	source string   // as configured, for the rule that names it
	forms  [][]rune // the glob; for "X *" also "X", so that "rm *" covers a bare rm
}

func compilePatterns(list []string) []pattern {
	out := make([]pattern, 0, len(list))
	for _, raw := range list {
		norm := strings.Join(strings.Fields(raw), " ")
		if norm == "" {
			continue
		}
		p := pattern{source: raw, forms: [][]rune{[]rune(norm)}}
		if bare, ok := strings.CutSuffix(norm, " *"); ok {
			p.forms = append(p.forms, []rune(bare))
		}
		out = append(out, p)
	}
	return out
}

// kind says what in a pattern may match a character of a command's text.
type kind uint8

const (
	fixed    kind = iota // from a static word: anything that matches it
	expanded             // source text of an expansion: * or the same character, never ?
	unseen               // stands for arguments added at run time: only *
)

// subject is a command's text with the kind of each character.
type subject struct {
	text  []rune
	kinds []kind
}

// newSubject lays out program and args as the text patterns match. With tail,
// a character that only * can match stands for the arguments xargs appends.
func newSubject(program string, args []word, tail bool) subject {
	var s subject
	s.add(program, fixed)
	for _, a := range args {
		s.add(" ", fixed)
		k := fixed
		if a.dynamic {
			k = expanded
		}
		s.add(a.text, k)
	}
	if tail {
		s.add(" ", fixed)
		s.add("…", unseen)
	}
	return s
}

func (s *subject) add(text string, k kind) {
	for _, r := range text {
		s.text = append(s.text, r)
		s.kinds = append(s.kinds, k)
	}
}

// match reports whether glob matches all of s: '*' matches any run of
// characters, spaces and slashes included, '?' one character, anything else
// itself. kinds may be nil: every character is then fixed.
func match(glob []rune, s subject) bool {
	p, t := 0, 0
	star, resume := -1, 0
	for t < len(s.text) {
		if p < len(glob) {
			k := fixed
			if s.kinds != nil {
				k = s.kinds[t]
			}
			switch g := glob[p]; {
			case g == '*':
				star, resume = p, t
				p++
				continue
			case g == '?' && k == fixed, g != '?' && g == s.text[t] && k != unseen:
				p++
				t++
				continue
			}
		}
		if star < 0 {
			return false
		}
		p = star + 1
		resume++
		t = resume
	}
	for p < len(glob) && glob[p] == '*' {
		p++
	}
	return p == len(glob)
}

// token is a character of a command's text, or a hole that may be any string.
type token struct {
	r    rune
	hole bool
}

// holes lays out a command with each word that has an expansion, together with
// the space before it, as a hole: its value may be anything, even empty or
// several words. With tail, a hole at the end stands for appended arguments.
func holes(program string, args []word, tail bool) []token {
	var out []token
	for _, r := range program {
		out = append(out, token{r: r})
	}
	for _, a := range args {
		if a.dynamic {
			out = append(out, token{hole: true})
			continue
		}
		out = append(out, token{r: ' '})
		for _, r := range a.text {
			out = append(out, token{r: r})
		}
	}
	if tail {
		out = append(out, token{hole: true})
	}
	return out
}

// overlaps reports whether some string matches both glob and text, that is
// whether the command could match the pattern once its expansions are known.
// It searches the product of the two automata.
func overlaps(glob []rune, text []token) bool {
	n, m := len(glob), len(text)
	seen := make([]bool, (n+1)*(m+1))
	stack := []int{0}
	seen[0] = true
	push := func(i, j int) {
		if k := i*(m+1) + j; !seen[k] {
			seen[k] = true
			stack = append(stack, k)
		}
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, j := k/(m+1), k%(m+1)
		if i == n && j == m {
			return true
		}
		star := i < n && glob[i] == '*'
		hole := j < m && text[j].hole
		if star {
			push(i+1, j)
		}
		if hole {
			push(i, j+1)
		}
		if i == n || j == m || star && hole {
			continue
		}
		switch {
		case star:
			push(i, j+1)
		case hole:
			push(i+1, j)
		case glob[i] == '?' || glob[i] == text[j].r:
			push(i+1, j+1)
		}
	}
	return false
}
