package event

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docField is a field as docs/events.md lists it.
type docField struct {
	name     string
	optional bool
	children []string // the fields in {…} or [{…}] after it
}

// TestDocsMatchTypes checks the "Types" table of docs/events.md against
// the Go types: every event type and every field is documented, nothing is
// documented that does not exist, and a field is marked optional exactly
// when it is omitted while empty.
func TestDocsMatchTypes(t *testing.T) {
	rows := docRows(t, "../../docs/events.md")
	known := map[string]Data{}
	for _, d := range All() {
		known[d.EventType()] = d
		if _, ok := rows[d.EventType()]; !ok {
			t.Errorf("docs/events.md: no row for %s", d.EventType())
		}
	}
	for typ, fields := range rows {
		d, ok := known[typ]
		if !ok {
			t.Errorf("docs/events.md documents %s, which is no event type of core/event", typ)
			continue
		}
		checkFields(t, typ, reflect.TypeOf(d), fields)
	}
}

func checkFields(t *testing.T, where string, typ reflect.Type, documented []docField) {
	t.Helper()
	goFields := jsonFields(typ)
	seen := map[string]bool{}
	for _, f := range documented {
		seen[f.name] = true
		gf, ok := goFields[f.name]
		if !ok {
			t.Errorf("docs/events.md: %s has no field %q (the Go type %s has %s)", where, f.name, typ, keys(goFields))
			continue
		}
		if !strings.Contains(where, "/") && gf.omitempty != f.optional { // top level only
			t.Errorf("docs/events.md: %s field %q: optional in the docs is %v, omitempty in Go is %v", where, f.name, f.optional, gf.omitempty)
		}
		if len(f.children) > 0 {
			if sub := structOf(gf.typ); sub != nil {
				checkFields(t, where+"/"+f.name, sub, childFields(f.children))
			}
		}
	}
	for name := range goFields {
		if !seen[name] {
			t.Errorf("docs/events.md: %s does not document field %q", where, name)
		}
	}
}

func childFields(names []string) []docField {
	out := make([]docField, len(names))
	for i, n := range names {
		out[i] = docField{name: n}
	}
	return out
}

type goField struct {
	typ       reflect.Type
	omitempty bool
}

func jsonFields(typ reflect.Type) map[string]goField {
	out := map[string]goField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = goField{typ: f.Type, omitempty: strings.Contains(opts, "omitempty")}
	}
	return out
}

// structOf is the struct a field holds (directly, by pointer or as a
// slice's elements), or nil for raw JSON and scalars.
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t == reflect.TypeOf(json.RawMessage(nil)) {
			return nil
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

func keys(m map[string]goField) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

// docRows reads the rows of the "## Types" table: type → fields.
func docRows(t *testing.T, path string) map[string][]docField {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(body), "\n## Types\n")
	if !ok {
		t.Fatalf("%s: no \"## Types\" section", path)
	}
	if end := strings.Index(rest, "\n#"); end >= 0 {
		rest = rest[:end]
	}
	rowRE := regexp.MustCompile("^\\| `([a-z_.]+)` \\| (.*) \\|$")
	rows := map[string][]docField{}
	for _, line := range strings.Split(rest, "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows[m[1]] = parseFields(m[2])
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows in the Types table", path)
	}
	return rows
}

var identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// parseFields reads the fields of a row's data column: the code spans
// that are identifiers, up to the first ": " or ". " outside parentheses
// (the prose after it explains). Code spans in parentheses are values, not
// fields; those in {…} or [{…}] are the fields of the field before them.
// "optional" before a field (since the last comma) marks it optional.
func parseFields(s string) []docField {
	var (
		out    []docField
		paren  int
		nested int
		since  strings.Builder // prose since the last field or comma
	)
	for i := 0; i < len(s); {
		c := s[i]
		if c == '`' {
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := strings.Repeat("`", n)
			end := strings.Index(s[i+n:], fence)
			if end < 0 {
				break
			}
			span := strings.TrimSpace(s[i+n : i+n+end])
			i += n + end + n
			if paren > 0 || !identRE.MatchString(span) {
				continue
			}
			if nested > 0 {
				if len(out) > 0 {
					out[len(out)-1].children = append(out[len(out)-1].children, span)
				}
				continue
			}
			out = append(out, docField{name: span, optional: strings.Contains(since.String(), "optional")})
			since.Reset()
			continue
		}
		switch {
		case c == '(':
			paren++
		case c == ')':
			paren--
		case paren > 0:
		case c == '{' || c == '[':
			nested++
		case c == '}' || c == ']':
			nested--
		case nested == 0 && (c == ':' || c == '.') && i+1 < len(s) && s[i+1] == ' ':
			return out
		case c == ',':
			since.Reset()
		default:
			since.WriteByte(c)
		}
		i++
	}
	return out
}

func TestParseFields(t *testing.T) {
	got := parseFields("`a` (`x` / `y`), optional `b` {`k`, `m`}, `c` [{`d`}]: prose `e`")
	want := []docField{{name: "a"}, {name: "b", optional: true, children: []string{"k", "m"}}, {name: "c", children: []string{"d"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
