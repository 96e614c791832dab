package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

// wireGolden is the recorded wire format: a line per event type (and per
// presentation view) with every field set, as `run --json` prints the
// data and the store keeps it. It is written by hand, not regenerated: a
// change to it is a change of the public contract (docs/events.md).
const wireGolden = "testdata/wire.jsonl"

type wireLine struct {
	Type string          `json:"type,omitempty"`
	View string          `json:"view,omitempty"`
	Data json.RawMessage `json:"data"`
}

// viewSamples has every presentation view with every field set.
func viewSamples() []sdk.Presentation {
	return []sdk.Presentation{
		sdk.TerminalView{Command: "go test ./...", ExitCode: 1, Output: "FAIL\n"},
		sdk.DiffView{Path: "a.go", Unified: "@@ -1 +1 @@\n-a\n+b\n"},
		sdk.SearchView{Query: "TODO", Total: 3, Hits: []sdk.SearchHit{{Path: "a.go", Line: 2, Text: "// TODO"}}},
		sdk.FileView{Path: "a.go", StartLine: 1, EndLine: 9},
		sdk.TextView{Text: "noted"},
	}
}

// TestWireFormatIsAsRecorded decodes every recorded line strictly into its
// Go type, so a field renamed or removed in Go (which would leave stored
// sessions and --json consumers reading blanks) fails here, and checks
// that the types encode their samples exactly as recorded, so a field
// added, reordered or made optional is a deliberate edit of the golden.
func TestWireFormatIsAsRecorded(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(wireGolden)
	if err != nil {
		t.Fatal(err)
	}
	var lines []wireLine
	for i, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		var w wireLine
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatalf("%s:%d: %v", wireGolden, i+1, err)
		}
		lines = append(lines, w)
	}

	types := map[string]reflect.Type{}
	for _, d := range All() {
		types[d.EventType()] = reflect.TypeOf(d)
	}
	views := map[string]reflect.Type{}
	for _, v := range Views() {
		views[v.PresentationKind()] = reflect.TypeOf(v)
	}
	recorded := map[string]json.RawMessage{}
	for i, w := range lines {
		where := fmt.Sprintf("%s:%d (%s%s)", wireGolden, i+1, w.Type, w.View)
		typ, ok := types[w.Type]
		key := w.Type
		if w.View != "" {
			typ, ok, key = views[w.View], views[w.View] != nil, "view "+w.View
		}
		if !ok {
			t.Errorf("%s: no such type in core/event (All, Views)", where)
			continue
		}
		recorded[key] = w.Data
		v := reflect.New(typ)
		dec := json.NewDecoder(bytes.NewReader(w.Data))
		dec.DisallowUnknownFields()
		if w.View != "" {
			v = reflect.New(withoutKind(typ))
		}
		if err := dec.Decode(v.Interface()); err != nil {
			t.Errorf("%s: the recorded data does not decode strictly into %s: %v\n(a field renamed or removed breaks every stored session and --json consumer; keep the old name, or version the change in docs/events.md)", where, typ, err)
		}
	}

	for _, d := range samples() {
		checkRecorded(t, d.EventType(), d, recorded)
	}
	for _, v := range viewSamples() {
		raw := MarshalPresentation(v)
		var plain any = json.RawMessage(raw)
		checkRecorded(t, "view "+v.PresentationKind(), plain, recorded)
	}
	if len(viewSamples()) != len(Views()) {
		t.Errorf("viewSamples has %d views, Views %d", len(viewSamples()), len(Views()))
	}
}

func checkRecorded(t *testing.T, key string, v any, recorded map[string]json.RawMessage) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	want, ok := recorded[key]
	switch {
	case !ok:
		field, name := "type", key
		if kind, ok := strings.CutPrefix(key, "view "); ok {
			field, name = "view", kind
		}
		t.Errorf("%s has no line in %s; add its sample's:\n{%q:%q,\"data\":%s}", key, wireGolden, field, name, got)
	case !bytes.Equal(got, want):
		t.Errorf("%s encodes its sample as\n%s\nbut %s recorded\n%s\n(if the change is meant, it changes the --json stream: edit the line and docs/events.md)", key, got, wireGolden, want)
	}
}

// withoutKind is a view type that also accepts the "kind" field
// MarshalPresentation adds.
func withoutKind(view reflect.Type) reflect.Type {
	fields := []reflect.StructField{{Name: "Kind", Type: reflect.TypeOf(""), Tag: `json:"kind"`}}
	for i := range view.NumField() {
		fields = append(fields, view.Field(i))
	}
	return reflect.StructOf(fields)
}
