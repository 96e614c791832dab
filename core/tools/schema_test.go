package tools

import (
	"sync"
	"testing"
)

// TestCompileSchemaDrafts: input schemas are checked against the
// metaschema of the draft they name (2020-12 when they name none), each
// draft's rules apply, and schemas compile from many goroutines at once
// (third_party/jsonschema compiles a draft's metaschemas on first use).
func TestCompileSchemaDrafts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, doc string
		ok        bool
	}{
		{"no $schema", `{"type": "object", "properties": {"n": {"type": "integer"}}}`, true},
		{"not a schema", `{"type": 5}`, false},
		{"draft-07", `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}`, true},
		{"draft-07, broken", `{"$schema": "http://json-schema.org/draft-07/schema#", "minimum": "one"}`, false},
		{"draft-04 by $ref", `{"$ref": "http://json-schema.org/draft-04/schema#"}`, true},
	} {
		if _, err := compileSchema(tt.name, []byte(tt.doc), false); (err == nil) != tt.ok {
			t.Errorf("%s: compile error %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	// Draft-07's array "items" is a tuple (2020-12 would refuse it).
	sch, err := compileSchema("tuple", []byte(`{"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "array", "items": [{"type": "string"}], "additionalItems": false}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if msg := validateJSON(sch, []byte(`["a"]`)); msg != "" {
		t.Errorf(`["a"] refused: %s`, msg)
	}
	if msg := validateJSON(sch, []byte(`["a", "b"]`)); msg == "" {
		t.Error(`["a", "b"] accepted despite additionalItems: false`)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := compileSchema("2019", []byte(`{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "string"}`), false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}
