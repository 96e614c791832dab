package view

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/sdk"
)

// The page's script reads events by their JSON field names, which no
// compiler checks: TestScriptReadsOnlyFieldsTheEventsHave holds every
// field it reads to the core/event types, so a renamed field fails here
// instead of showing blank on the page.

var (
	// a render entry: `"tool.call": function (ev, d) {`
	entryRE = regexp.MustCompile(`(?m)^    "([a-z_.]+)": function \(`)
	// a view of presentation(): `case "terminal":`
	caseRE = regexp.MustCompile(`(?m)^      case "([a-z]+)":`)
	// (X.FIELD || []).forEach(function (NAME) — NAME is an element of X.FIELD
	eachRE = regexp.MustCompile(`\((\w+)\.([a-z_]+) \|\| \[\]\)\.forEach\(function \((\w+)\)`)
	// a field path read from a variable: d.error.kind, p.hits
	readRE = regexp.MustCompile(`\b([a-z]\w*)((?:\.[a-z_]+)+)`)
)

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

func TestScriptReadsOnlyFieldsTheEventsHave(t *testing.T) {
	t.Parallel()
	types := map[string]reflect.Type{}
	for _, d := range event.All() {
		types[d.EventType()] = reflect.TypeOf(d)
	}
	renderStart := strings.Index(script, "var render = {")
	presStart := strings.Index(script, "function presentation(")
	chartStart := strings.Index(script, "// ---- chart")
	if renderStart < 0 || presStart < renderStart || chartStart < presStart {
		t.Fatal("view.js: the render table, presentation() and the chart are not where this test looks for them")
	}

	entries := sections(script[renderStart:presStart], entryRE)
	if len(entries) == 0 {
		t.Fatal("view.js: no render entries found")
	}
	for typ, body := range entries {
		goType, ok := types[typ]
		if !ok {
			t.Errorf("view.js renders %q, which is no event type of core/event", typ)
			continue
		}
		if checkReads(t, typ, body, map[string]reflect.Type{"d": goType}) == 0 && typ != event.TypeAssistantChunk {
			t.Errorf("view.js, %s: found no field it reads (does the entry still name its data d?)", typ)
		}
	}
	for typ := range types {
		if _, ok := entries[typ]; !ok {
			t.Errorf("view.js has no render entry for %s (it would show as raw JSON)", typ)
		}
	}

	views := map[string]reflect.Type{}
	for _, v := range event.Views() {
		views[v.PresentationKind()] = reflect.TypeOf(v)
	}
	cases := sections(script[presStart:chartStart], caseRE)
	for kind, body := range cases {
		goType, ok := views[kind]
		if !ok {
			t.Errorf("view.js presentation() draws kind %q, which is no view of core/event.Views", kind)
			continue
		}
		if checkReads(t, "presentation "+kind, body, map[string]reflect.Type{"p": withKind(goType)}) == 0 {
			t.Errorf("view.js, presentation %s: found no field it reads", kind)
		}
	}
	for kind := range views {
		if _, ok := cases[kind]; !ok {
			t.Errorf("view.js presentation() does not draw kind %s", kind)
		}
	}

	// The chart reads llm.usage: `var d = u.data || {}` and (u.data || {}).X.
	chart := strings.ReplaceAll(script[chartStart:], "(u.data || {}).", "d.")
	if checkReads(t, "the chart", chart, map[string]reflect.Type{"d": types[event.TypeLLMUsage]}) == 0 {
		t.Error("view.js, the chart: found no field it reads")
	}
}

// sections splits src at the matches of re: name → the text up to the next.
func sections(src string, re *regexp.Regexp) map[string]string {
	out := map[string]string{}
	idx := re.FindAllStringSubmatchIndex(src, -1)
	for i, m := range idx {
		end := len(src)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out[src[m[2]:m[3]]] = src[m[1]:end]
	}
	return out
}

// withKind is a view type with the "kind" field MarshalPresentation puts
// first.
func withKind(view reflect.Type) reflect.Type {
	fields := []reflect.StructField{{Name: "Kind", Type: reflect.TypeOf(""), Tag: `json:"kind"`}}
	for i := range view.NumField() {
		fields = append(fields, view.Field(i))
	}
	return reflect.StructOf(fields)
}

// checkReads checks every field path read from the variables of vars in
// body (and from the elements forEach binds) against their Go types.
func checkReads(t *testing.T, where, body string, vars map[string]reflect.Type) (n int) {
	t.Helper()
	for _, m := range eachRE.FindAllStringSubmatch(body, -1) {
		if typ, ok := vars[m[1]]; ok {
			if f, ok := fieldType(typ, m[2]); ok && f.Kind() == reflect.Slice {
				vars[m[3]] = f.Elem()
			}
		}
	}
	for _, m := range readRE.FindAllStringSubmatch(body, -1) {
		typ, ok := vars[m[1]]
		if !ok {
			continue
		}
		n++
		path := strings.Split(strings.TrimPrefix(m[2], "."), ".")
		if err := resolve(typ, path); err != "" {
			t.Errorf("view.js, %s: %s%s: %s", where, m[1], m[2], err)
		}
	}
	return n
}

// resolve follows a field path through typ: struct fields by JSON name;
// .length of a string or a list; nothing further into a number or a bool;
// anything into raw JSON (a call's arguments are the tool's own).
func resolve(typ reflect.Type, path []string) string {
	for i, name := range path {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch {
		case typ == rawMessage || typ.Kind() == reflect.Interface || typ.Kind() == reflect.Map:
			return ""
		case typ.Kind() == reflect.Struct:
			f, ok := fieldType(typ, name)
			if !ok {
				return "no field " + name + " in " + typ.String() + " (core/event, docs/events.md)"
			}
			typ = f
		case name == "length" && (typ.Kind() == reflect.String || typ.Kind() == reflect.Slice):
			if i != len(path)-1 {
				return ".length is a number"
			}
		default:
			return "." + name + " of " + strings.Join(path[:i], ".") + ", which is a " + typ.String()
		}
	}
	return ""
}

func fieldType(typ reflect.Type, name string) (reflect.Type, bool) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name {
			return f.Type, true
		}
	}
	return nil, false
}

// The check itself catches what it is for.
func TestScriptCheckCatchesAMissingField(t *testing.T) {
	t.Parallel()
	ended := reflect.TypeOf(event.SessionEnded{})
	for _, tt := range []struct {
		path, want string
	}{
		{"status", ""},
		{"pending_actions.length", "which is a int"},
		{"pending", "no field pending"},
	} {
		got := resolve(ended, strings.Split(tt.path, "."))
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("d.%s: %q, want %q", tt.path, got, tt.want)
		}
	}
	if got := resolve(reflect.TypeOf(event.ToolCall{}), []string{"arguments", "command"}); got != "" {
		t.Errorf("a call's arguments are the tool's own: %q", got)
	}
	if got := resolve(withKind(reflect.TypeOf(sdk.SearchView{})), []string{"hits"}); got != "" {
		t.Errorf("search hits: %q", got)
	}
}
