package tools

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

// A built-in tool's input schema is compiled as trusted: a run whose tools
// are all built-in never compiles the JSON Schema metaschemas (about 6,000
// allocations and 2 ms once per process). A plugin's schema is checked
// against them, which the same count shows.
func TestBuiltinToolSchemaSkipsMetaschemas(t *testing.T) {
	add := func(origin Origin, name string) func() {
		return func() {
			err := NewRegistry().Add(Tool{Spec: sdk.ToolSpec{Name: name, InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
				Origin: origin, Owner: "p", Source: noSource{}})
			if err != nil {
				panic(err)
			}
		}
	}
	counts := testkit.AllocsInFreshProcess(t, add(OriginBuiltin, "read_file"), add(OriginPlugin, "other"))
	builtin, plugin := counts[0], counts[1]
	t.Logf("allocations of Registry.Add: built-in %d, then a plugin's %d", builtin, plugin)
	if plugin < 3000 {
		t.Fatalf("a plugin tool's first Add made %d allocations: the metaschemas were compiled before it (by the built-in's?)", plugin)
	}
	if builtin > plugin/4 {
		t.Errorf("a built-in tool's first Add made %d allocations (a plugin's then %d): its schema was checked against the metaschemas", builtin, plugin)
	}
}

// A schema compiled as trusted validates instances exactly as the same
// schema checked against the metaschema does, errors included.
func TestTrustedSchemaValidatesTheSame(t *testing.T) {
	t.Parallel()
	schemas := []string{
		`{"type":"object","properties":{"path":{"type":"string","minLength":1},"offset":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`,
		`{"type":"object","properties":{"mode":{"enum":["a","b"]},"items":{"type":"array","items":{"$ref":"#/$defs/item"},"maxItems":2}},"$defs":{"item":{"type":"string","pattern":"^x"}}}`,
		`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"boolean"},"b":{"type":["string","null"]}}}`,
	}
	instances := []string{`{}`, `{"path":""}`, `{"path":"a","offset":0}`, `{"path":"a","extra":1}`, `{"mode":"c"}`,
		`{"items":["x1","y"]}`, `{"items":["x","x","x"]}`, `{"a":true}`, `{"a":true,"b":"s"}`, `{"b":null}`, `[]`, `"s"`}
	for i, doc := range schemas {
		trusted, err := compileSchema(fmt.Sprint("trusted", i), []byte(doc), true)
		if err != nil {
			t.Fatal(err)
		}
		checked, err := compileSchema(fmt.Sprint("checked", i), []byte(doc), false)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range instances {
			got := validateJSON(trusted, []byte(in))
			want := validateJSON(checked, []byte(in))
			// The messages name the schema's URL, which differs by name only.
			got = string(bytes.ReplaceAll([]byte(got), []byte(fmt.Sprint("trusted", i)), []byte(fmt.Sprint("checked", i))))
			if words(got) != words(want) {
				t.Errorf("schema %d, instance %s: trusted says %q, checked says %q", i, in, got, want)
			}
		}
	}
}

// words is msg's words sorted: the order in which a message lists names
// follows a map's.
func words(msg string) string {
	ws := strings.Fields(strings.NewReplacer(",", " ", "'", " ").Replace(msg))
	slices.Sort(ws)
	return strings.Join(ws, " ")
}

// The artifact schemas, compiled as trusted, are valid JSON Schema.
func TestArtifactSchemasValid(t *testing.T) {
	t.Parallel()
	for name, doc := range artifactSchemas {
		if _, err := compileSchema("artifact-"+name, []byte(doc), false); err != nil {
			t.Errorf("artifact %s: %v", name, err)
		}
	}
}

// A trusted document that names its draft is still checked against it.
func TestTrustedSchemaNamingADraftIsChecked(t *testing.T) {
	t.Parallel()
	if _, err := compileSchema("named", []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":5}`), true); err == nil {
		t.Error(`{"$schema": 2020-12, "type": 5} compiled as trusted; a document naming its draft is checked against it`)
	}
}
