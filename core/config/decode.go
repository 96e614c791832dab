package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/gocty"
)

// attrs decodes the attributes of one block body into Go values, appending a diagnostic
// at the attribute's value for everything it refuses. Each getter reports whether the
// attribute was set to a usable value; an absent or null attribute leaves dst untouched.
type attrs struct {
	ctx   *hcl.EvalContext
	m     hcl.Attributes
	diags *hcl.Diagnostics
}

func (a *attrs) has(name string) bool {
	_, ok := a.m[name]
	return ok
}

// rangeOf returns the range of an attribute's value.
func (a *attrs) rangeOf(name string) hcl.Range {
	return a.m[name].Expr.Range()
}

func (a *attrs) errorf(rng hcl.Range, summary, format string, args ...any) {
	*a.diags = append(*a.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	})
}

// eval evaluates an attribute as written, before any conversion.
func (a *attrs) eval(name string) (cty.Value, bool) {
	attr, ok := a.m[name]
	if !ok {
		return cty.NilVal, false
	}
	v, diags := attr.Expr.Value(a.ctx)
	renameFileErrors(diags)
	*a.diags = append(*a.diags, diags...)
	if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
		return cty.NilVal, false
	}
	return v, true
}

// convert evaluates an attribute and converts it to ty; want describes ty for people.
func (a *attrs) convert(name string, ty cty.Type, want string) (cty.Value, bool) {
	v, ok := a.eval(name)
	if !ok {
		return cty.NilVal, false
	}
	return a.convertValue(name, v, ty, want)
}

// convertValue converts the value of an attribute that is already evaluated.
func (a *attrs) convertValue(name string, v cty.Value, ty cty.Type, want string) (cty.Value, bool) {
	cv, err := convert.Convert(v, ty)
	if err != nil {
		a.errorf(a.rangeOf(name), "Incorrect attribute value type",
			"%s must be %s: %s.", name, want, conversionMessage(err))
		return cty.NilVal, false
	}
	return cv, true
}

func (a *attrs) str(name string, dst *string) bool {
	v, ok := a.convert(name, cty.String, "a string")
	if ok {
		*dst = v.AsString()
	}
	return ok
}

// nonEmptyStr is str for attributes where "" means nothing useful.
func (a *attrs) nonEmptyStr(name string, dst *string) bool {
	var s string
	if !a.str(name, &s) {
		return false
	}
	if strings.TrimSpace(s) == "" {
		a.errorf(a.rangeOf(name), "Empty value", "%s must not be empty.", name)
		return false
	}
	*dst = s
	return true
}

func (a *attrs) boolean(name string, dst *bool) bool {
	v, ok := a.convert(name, cty.Bool, "true or false")
	if ok {
		*dst = v.True()
	}
	return ok
}

// number decodes a number that must be at least min.
func (a *attrs) number(name string, dst *float64, min float64) bool {
	v, ok := a.convert(name, cty.Number, "a number")
	if !ok {
		return false
	}
	f, _ := v.AsBigFloat().Float64()
	if f < min {
		a.errorf(a.rangeOf(name), "Value out of range", "%s must be at least %g; got %g.", name, min, f)
		return false
	}
	*dst = f
	return true
}

// integer decodes a whole number that must be at least min.
func (a *attrs) integer(name string, dst *int64, min int64) bool {
	v, ok := a.convert(name, cty.Number, "a whole number")
	if !ok {
		return false
	}
	var n int64
	if err := gocty.FromCtyValue(v, &n); err != nil {
		bf := v.AsBigFloat()
		if bf.IsInt() {
			a.errorf(a.rangeOf(name), "Value out of range", "%s = %s is too large.", name, bf.Text('g', -1))
		} else {
			a.errorf(a.rangeOf(name), "Incorrect attribute value type",
				"%s must be a whole number; got %s.", name, bf.Text('g', -1))
		}
		return false
	}
	if n < min {
		a.errorf(a.rangeOf(name), "Value out of range", "%s must be at least %d; got %d.", name, min, n)
		return false
	}
	*dst = n
	return true
}

func (a *attrs) integerInt(name string, dst *int, min int64) bool {
	var n int64
	if !a.integer(name, &n, min) {
		return false
	}
	*dst = int(n)
	return true
}

// duration decodes a positive Go duration string such as "90s" or "2m30s".
func (a *attrs) duration(name string, dst *time.Duration) bool {
	var s string
	if !a.str(name, &s) {
		return false
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		a.errorf(a.rangeOf(name), "Invalid duration",
			"%s = %q is not a duration: write a number with a unit, like \"90s\", \"2m\" or \"1m30s\".", name, s)
		return false
	}
	if d <= 0 {
		a.errorf(a.rangeOf(name), "Invalid duration", "%s must be positive; got %q.", name, s)
		return false
	}
	*dst = d
	return true
}

// enum decodes a string that must be one of allowed.
func (a *attrs) enum(name string, dst *string, allowed ...string) bool {
	var s string
	if !a.str(name, &s) {
		return false
	}
	for _, v := range allowed {
		if s == v {
			*dst = s
			return true
		}
	}
	a.errorf(a.rangeOf(name), fmt.Sprintf("Invalid %s value", name),
		"%s must be %s; got %q.", name, oneOf(allowed), s)
	return false
}

// strList decodes a list of strings with the range of each element: the element's own
// range when the list is written out, the whole value's range otherwise.
func (a *attrs) strList(name string) ([]string, []hcl.Range, bool) {
	v, ok := a.convert(name, cty.List(cty.String), "a list of strings")
	if !ok {
		return nil, nil, false
	}
	return a.listElems(name, v)
}

// strListValue is strList for a value that is already evaluated.
func (a *attrs) strListValue(name string, v cty.Value) ([]string, []hcl.Range, bool) {
	v, ok := a.convertValue(name, v, cty.List(cty.String), "a list of strings")
	if !ok {
		return nil, nil, false
	}
	return a.listElems(name, v)
}

func (a *attrs) listElems(name string, v cty.Value) ([]string, []hcl.Range, bool) {
	rng := a.rangeOf(name)
	ranges := make([]hcl.Range, v.LengthInt())
	exprs, diags := hcl.ExprList(a.m[name].Expr)
	for i := range ranges {
		ranges[i] = rng
		if !diags.HasErrors() && len(exprs) == len(ranges) {
			ranges[i] = exprs[i].Range()
		}
	}
	out := make([]string, 0, len(ranges))
	ok := true
	for i, e := range v.AsValueSlice() {
		if e.IsNull() {
			a.errorf(ranges[i], "Incorrect attribute value type", "%s: element %d must not be null.", name, i)
			ok = false
			continue
		}
		out = append(out, e.AsString())
	}
	if !ok {
		return nil, nil, false
	}
	return out, ranges, true
}

// strMap decodes a map of strings.
func (a *attrs) strMap(name string) (map[string]string, bool) {
	v, ok := a.convert(name, cty.Map(cty.String), "a map of strings")
	if !ok {
		return nil, false
	}
	out := make(map[string]string, v.LengthInt())
	for k, e := range v.AsValueMap() {
		if e.IsNull() {
			a.errorf(a.rangeOf(name), "Incorrect attribute value type", "%s: %q must not be null.", name, k)
			return nil, false
		}
		out[k] = e.AsString()
	}
	return out, true
}

// singleBlock returns the only block of a type, reporting any further one.
func singleBlock(blocks hcl.Blocks, diags *hcl.Diagnostics) *hcl.Block {
	if len(blocks) == 0 {
		return nil
	}
	for _, extra := range blocks[1:] {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Duplicate %s block", extra.Type),
			Detail: fmt.Sprintf("Only one %s block is allowed here; the first is at %s.",
				extra.Type, blocks[0].DefRange),
			Subject: extra.DefRange.Ptr(),
		})
	}
	return blocks[0]
}

// singleItem returns the only item of a top-level block type, reporting
// any further one; false when there is none.
func (l *loader) singleItem(items []item) (item, bool) {
	blocks := make(hcl.Blocks, len(items))
	for i, it := range items {
		blocks[i] = it.block
	}
	if singleBlock(blocks, &l.diags) == nil {
		return item{}, false
	}
	return items[0], true
}

// conversionMessage renders a go-cty conversion error with the path it happened at.
func conversionMessage(err error) string {
	pe, ok := err.(cty.PathError)
	if !ok || len(pe.Path) == 0 {
		return err.Error()
	}
	var b strings.Builder
	for _, step := range pe.Path {
		switch s := step.(type) {
		case cty.IndexStep:
			if s.Key.Type() == cty.Number {
				bf := s.Key.AsBigFloat()
				fmt.Fprintf(&b, "[%s]", bf.Text('f', -1))
			} else if s.Key.Type() == cty.String {
				fmt.Fprintf(&b, "[%q]", s.Key.AsString())
			}
		case cty.GetAttrStep:
			fmt.Fprintf(&b, ".%s", s.Name)
		}
	}
	return fmt.Sprintf("element %s: %s", strings.TrimPrefix(b.String(), "."), pe.Error())
}

// oneOf renders allowed values as `"a", "b" or "c"`.
func oneOf(allowed []string) string {
	quoted := make([]string, len(allowed))
	for i, v := range allowed {
		quoted[i] = fmt.Sprintf("%q", v)
	}
	switch len(quoted) {
	case 1:
		return quoted[0]
	case 2:
		return quoted[0] + " or " + quoted[1]
	}
	return "one of " + strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}

// didYouMean suggests the candidate closest to name, or "".
func didYouMean(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := levenshtein.Distance(name, c, nil); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}
