package shellpolicy

import (
	"slices"
	"strings"
)

// optionSpec describes a wrapper's options well enough to find the command it
// runs. Options it does not list make the wrapper's words unsure.
type optionSpec struct {
	arg      string   // short options that take a value: -u root, -uroot
	optArg   string   // short options whose value, if any, is attached: -i{}, -l1
	flag     string   // short options without a value
	longArg  []string // long options that take a value: --user root, --user=root
	longFlag []string // long options without one, or with an attached =value

	opaque     string   // options with which the wrapper does more than run the command
	longOpaque []string // (time -o FILE writes a file, env -C DIR changes directory)
	noRun      string   // short options with which no command runs at all (command -v)
	numeric    bool     // -N is an option (nice -5)
	dash       bool     // a lone - is an option (env -)
}

// options is what parsing a wrapper's arguments found.
type options struct {
	rest   []word   // from the first word that is not an option on
	exact  bool     // every word before rest was understood
	plain  bool     // no opaque option
	noRun  bool     // an option says no command runs
	values []string // option name, value, name, value… in order
}

// value returns the last value given to any of names.
func (o *options) value(names ...string) (string, bool) {
	for i := len(o.values) - 2; i >= 0; i -= 2 {
		if slices.Contains(names, o.values[i]) {
			return o.values[i+1], true
		}
	}
	return "", false
}

func (spec *optionSpec) parse(args []word) options {
	o := options{exact: true, plain: true}
	i := 0
	for i < len(args) {
		a := args[i]
		if a.dynamic {
			// An expansion here may be options, a command, or both.
			o.exact = false
			break
		}
		t := a.text
		if t == "--" {
			i++
			break
		}
		if spec.dash && t == "-" {
			i++
			continue
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		i++
		if strings.HasPrefix(t, "--") {
			i = spec.long(&o, t[2:], args, i)
		} else {
			i = spec.short(&o, t[1:], args, i)
		}
	}
	o.rest = args[i:]
	return o
}

// long handles --name or --name=value; next is the index of the following
// word, returned advanced past a value it took.
func (spec *optionSpec) long(o *options, opt string, args []word, next int) int {
	name, val, hasVal := strings.Cut(opt, "=")
	switch {
	case slices.Contains(spec.longArg, name):
		if !hasVal {
			val, next = o.take(args, next)
		}
	case !slices.Contains(spec.longFlag, name):
		o.exact = false
	}
	if slices.Contains(spec.longOpaque, name) {
		o.plain = false
	}
	o.values = append(o.values, name, val)
	return next
}

// short handles a cluster of short options such as -Eu or -n5.
func (spec *optionSpec) short(o *options, cluster string, args []word, next int) int {
	if spec.numeric && isNumber(cluster) {
		o.values = append(o.values, "n", cluster)
		return next
	}
	for j := 0; j < len(cluster); j++ {
		c := cluster[j]
		name := cluster[j : j+1]
		if strings.IndexByte(spec.opaque, c) >= 0 {
			o.plain = false
		}
		if strings.IndexByte(spec.noRun, c) >= 0 {
			o.noRun = true
		}
		switch {
		case strings.IndexByte(spec.arg, c) >= 0:
			val := cluster[j+1:]
			if val == "" {
				val, next = o.take(args, next)
			}
			o.values = append(o.values, name, val)
			return next
		case strings.IndexByte(spec.optArg, c) >= 0:
			o.values = append(o.values, name, cluster[j+1:])
			return next
		case strings.IndexByte(spec.flag, c) >= 0, strings.IndexByte(spec.noRun, c) >= 0:
			o.values = append(o.values, name, "")
		default:
			o.exact = false
		}
	}
	return next
}

// take consumes the word at next as an option's value.
func (o *options) take(args []word, next int) (string, int) {
	if next >= len(args) {
		o.exact = false
		return "", next
	}
	if args[next].dynamic {
		// Unquoted, it may split into the value and a command.
		o.exact = false
	}
	return args[next].text, next + 1
}
