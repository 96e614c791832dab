package tools

import (
	"encoding/json"
	"testing"
)

// FuzzCanonical checks that canonical arguments are valid JSON, that
// canonicalizing them again changes nothing, and that the validator's value
// encodes to the same JSON.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"b":1,"a":[1,2,{"d":null,"c":true}]}`, `{"n":1e400}`, `{"s":"<&>\u2028"}`, `[1]`, `{"a":1} x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, value, err := canonical([]byte(in))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("canonical(%q) = %q is not JSON", in, out)
		}
		again, _, err := canonical(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, out, again, err)
		}
		if _, ok := value.(map[string]any); !ok {
			t.Fatalf("value of %q is %T, want an object", in, value)
		}
	})
}
