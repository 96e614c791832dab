package script

import "testing"

// FuzzParseScript: the script parser never panics, and a script it accepts
// has only turns that say something. Seeds are in testdata/fuzz/FuzzParseScript.
func FuzzParseScript(f *testing.F) {
	f.Fuzz(func(t *testing.T, src []byte) {
		turns, diags := parseScript(src, "fuzz.hcl")
		if diags.HasErrors() {
			return
		}
		for _, tr := range turns {
			if tr.reasoning == "" && tr.text == "" && len(tr.toolCalls) == 0 {
				t.Fatalf("an empty turn was accepted: %q", src)
			}
		}
	})
}
