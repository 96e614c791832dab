package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// maxFileFuncSize caps what file() reads: prompts are text, not data sets.
const maxFileFuncSize = 16 << 20

// stdFunctions are the go-cty standard library functions under the names Terraform
// users know, mapped on first use: every process of the harness binary, each
// plugin's too, initializes this package.
var stdFunctions = sync.OnceValue(func() map[string]function.Function {
	return map[string]function.Function{
		"abs":             stdlib.AbsoluteFunc,
		"ceil":            stdlib.CeilFunc,
		"chomp":           stdlib.ChompFunc,
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        stdlib.CoalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"csvdecode":       stdlib.CSVDecodeFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"floor":           stdlib.FloorFunc,
		"format":          stdlib.FormatFunc,
		"formatlist":      stdlib.FormatListFunc,
		"indent":          stdlib.IndentFunc,
		"join":            stdlib.JoinFunc,
		"jsondecode":      stdlib.JSONDecodeFunc,
		"jsonencode":      stdlib.JSONEncodeFunc,
		"keys":            stdlib.KeysFunc,
		"length":          stdlib.LengthFunc,
		"lookup":          stdlib.LookupFunc,
		"lower":           stdlib.LowerFunc,
		"max":             stdlib.MaxFunc,
		"merge":           stdlib.MergeFunc,
		"min":             stdlib.MinFunc,
		"parseint":        stdlib.ParseIntFunc,
		"range":           stdlib.RangeFunc,
		"regex":           stdlib.RegexFunc,
		"regexall":        stdlib.RegexAllFunc,
		"regex_replace":   stdlib.RegexReplaceFunc,
		"replace":         stdlib.ReplaceFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"split":           stdlib.SplitFunc,
		"strlen":          stdlib.StrlenFunc,
		"strrev":          stdlib.ReverseFunc,
		"substr":          stdlib.SubstrFunc,
		"title":           stdlib.TitleFunc,
		"tobool":          stdlib.MakeToFunc(cty.Bool),
		"tolist":          stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":           stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":        stdlib.MakeToFunc(cty.Number),
		"toset":           stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":        stdlib.MakeToFunc(cty.String),
		"trim":            stdlib.TrimFunc,
		"trimprefix":      stdlib.TrimPrefixFunc,
		"trimspace":       stdlib.TrimSpaceFunc,
		"trimsuffix":      stdlib.TrimSuffixFunc,
		"upper":           stdlib.UpperFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,
	}
})

// evalContext returns the functions of a configuration file whose directory is dir
// (absolute) and whose display directory, used in messages, is displayDir.
// record, when not nil, is told every file file() reads.
func evalContext(dir, displayDir string, getenv func(string) string, record func(path string, data []byte)) *hcl.EvalContext {
	funcs := make(map[string]function.Function, len(stdFunctions())+2)
	for name, f := range stdFunctions() {
		funcs[name] = f
	}
	funcs["env"] = envFunc(getenv)
	funcs["file"] = fileFunc(dir, displayDir, record)
	return &hcl.EvalContext{Functions: funcs}
}

// envFunc is env("NAME"): the variable's value, "" when it is not set.
func envFunc(getenv func(string) string) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the value of an environment variable, or \"\" when it is not set.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(getenv(args[0].AsString())), nil
		},
	})
}

// fileFunc is file("path"): the UTF-8 text of a regular file, relative to the directory
// of the configuration file that calls it.
func fileFunc(dir, displayDir string, record func(path string, data []byte)) function.Function {
	return function.New(&function.Spec{
		Description: "Reads a text file, relative to the configuration file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			full, shown := name, name
			if !filepath.IsAbs(name) {
				full, shown = filepath.Join(dir, name), filepath.Join(displayDir, name)
			}
			text, err := readTextFile(full)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "cannot read %s: %s", shown, err)
			}
			if record != nil {
				record(full, []byte(text))
			}
			return cty.StringVal(text), nil
		},
	})
}

func readTextFile(path string) (string, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", errors.New("no such file")
	case err != nil:
		return "", unwrapPathError(err)
	case !st.Mode().IsRegular():
		return "", errors.New("not a regular file")
	case st.Size() > maxFileFuncSize:
		return "", fmt.Errorf("larger than %d MiB", maxFileFuncSize>>20)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", unwrapPathError(err)
	}
	if !utf8.Valid(data) {
		return "", errors.New("not UTF-8 text")
	}
	return string(data), nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// renameFileErrors gives the failures of file() a summary of their own, so that a missing
// prompt reads as such and not as a generic function error.
func renameFileErrors(diags hcl.Diagnostics) {
	for _, d := range diags {
		extra, ok := d.Extra.(hclsyntax.FunctionCallDiagExtra)
		if ok && extra.CalledFunctionName() == "file" && extra.FunctionCallError() != nil {
			d.Summary = "Unreadable file"
		}
	}
}
