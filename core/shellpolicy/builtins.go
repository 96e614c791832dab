package shellpolicy

import (
	"slices"
	"strings"
	"sync"
)

// Builtins that run code the policy cannot see, change what a later command
// runs, or evaluate a name they are given. No allow rule approves them: a
// person must (see the package documentation, "Code the shell evaluates").

// codeBuiltins run code from somewhere the command line does not show, or
// change what later names run. Each always needs a person.
var codeBuiltins = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"source":   "runs the commands of a file, which the policy cannot see",
		".":        "runs the commands of a file, which the policy cannot see",
		"eval":     "runs a string as shell code",
		"trap":     "runs a string as shell code later",
		"enable":   "loads or disables shell builtins",
		"alias":    "changes what a command name runs",
		"complete": "registers code for the shell to run",
		"compgen":  "expands its word list and runs functions and commands it is given",
		"bind":     "registers code for the shell to run",
		"fc":       "runs commands from the shell's history",
	}
})

// builtin applies the rules of the shell builtin name to cl.
func (c *context) builtin(name string, cl call) {
	args := cl.words[1:]
	if why, ok := codeBuiltins()[name]; ok && (name != "alias" && name != "trap" || defines(args)) {
		c.block("%q %s", joinWords(cl.words), why)
		return
	}
	switch name {
	case "hash":
		if slices.ContainsFunc(args, func(w word) bool { return w.dynamic || isOption(w.text) && strings.Contains(w.text, "p") }) {
			c.block("%q changes what a command name runs", joinWords(cl.words))
		}
	case "mapfile", "readarray":
		if slices.ContainsFunc(args, func(w word) bool { return w.dynamic || isOption(w.text) && strings.Contains(w.text, "C") }) {
			c.block("%q may run a callback as shell code", joinWords(cl.words))
		}
		c.names(cl, "mapfile", lastWord(args))
	case "read":
		c.names(cl, "read", operands(args, "adeinNptu"))
	case "getopts":
		if len(args) >= 2 {
			c.names(cl, "getopts", args[1:2])
		}
	case "printf":
		c.printf(cl)
	case "wait":
		c.names(cl, "wait", optionValues(args, "p"))
	case "unset":
		c.names(cl, "unset", operands(args, ""))
	case "let":
		for _, a := range args {
			if a.dynamic || !numeral().MatchString(a.text) {
				c.block("%q %s", joinWords(cl.words), arithmNote)
				return
			}
		}
	case "test", "[":
		c.test(cl)
	}
}

// defines reports whether alias or trap is given something to define
// rather than only options or names to print or reset.
func defines(args []word) bool {
	for _, a := range args {
		if a.dynamic || !isOption(a.text) && a.text != "-" {
			return true
		}
	}
	return false
}

// names checks the variable names a builtin assigns or looks up: each must be
// a name without a subscript bash would evaluate, and counts as a variable
// the command sets.
func (c *context) names(cl call, builtin string, ws []word) {
	for _, w := range ws {
		if w.dynamic || !plainName(w.text) {
			c.block("%s in %q uses a variable name that may hold an array subscript, which bash evaluates", builtin, joinWords(cl.words))
			return
		}
		name, _, _ := strings.Cut(w.text, "[")
		c.setVariable(name)
	}
}

// printf -v NAME assigns NAME; a first word known only when it runs may be -v.
func (c *context) printf(cl call) {
	args := cl.words[1:]
	if len(args) > 1 && args[0].dynamic {
		c.block("the first word of %q may be -v, which assigns a variable by a name bash evaluates", joinWords(cl.words))
		return
	}
	c.names(cl, "printf -v", optionValues(args, "v"))
}

// test checks test and [: the name -v and -R look up must be plain, and a
// word known only when it runs must stay one word and sit where it cannot be
// -v or -R with an operand after it.
func (c *context) test(cl call) {
	args := cl.words[1:]
	if baseName(cl.words[0].text) == "[" && len(args) > 0 && args[len(args)-1].text == "]" {
		args = args[:len(args)-1]
	}
	for i, a := range args {
		unsafe := a.splits ||
			!a.dynamic && (a.text == "-v" || a.text == "-R") && (i+1 == len(args) || args[i+1].dynamic || !plainName(args[i+1].text)) ||
			a.dynamic && i+1 < len(args) && !testOperand(args, i)
		if unsafe {
			c.block("%q may look up a variable by a name that holds an array subscript, which bash evaluates", joinWords(cl.words))
			return
		}
	}
}

// testOperand reports whether args[i] is read as an operand whatever its
// value: it follows a unary operator other than -v and -R, or a binary
// operator is next to it.
func testOperand(args []word, i int) bool {
	if i > 0 && !args[i-1].dynamic && isOption(args[i-1].text) && len(args[i-1].text) == 2 && args[i-1].text != "-v" && args[i-1].text != "-R" {
		return true
	}
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(args) && !args[j].dynamic && testBinary()[args[j].text] {
			return true
		}
	}
	return false
}

var testBinary = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"=": true, "==": true, "!=": true, "<": true, ">": true,
		"-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true,
		"-nt": true, "-ot": true, "-ef": true,
	}
})

// operands returns the words after the options of a builtin whose options in
// withValue take a value.
func operands(args []word, withValue string) []word {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dynamic || !isOption(a.text) {
			return args[i:]
		}
		if a.text == "--" {
			return args[i+1:]
		}
		if strings.ContainsAny(a.text[len(a.text)-1:], withValue) {
			i++
		}
	}
	return nil
}

// optionValues returns the values given to the short option opt (-v NAME or
// -vNAME); a word known only when it runs among the options counts as one.
func optionValues(args []word, opt string) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.dynamic:
			return append(out, a)
		case a.text == "--" || !isOption(a.text):
			return out
		case strings.HasPrefix(a.text, "-"+opt):
			if v := a.text[len(opt)+1:]; v != "" {
				out = append(out, word{text: v})
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		}
	}
	return out
}

func lastWord(ws []word) []word {
	if len(ws) == 0 || !ws[len(ws)-1].dynamic && isOption(ws[len(ws)-1].text) {
		return nil
	}
	return ws[len(ws)-1:]
}

func isOption(s string) bool {
	return len(s) > 1 && (s[0] == '-' || s[0] == '+')
}
