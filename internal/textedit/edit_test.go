package textedit

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApply(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		text    string
		edits   []Edit
		want    string
		wantN   int
		problem string
		inMsg   []string
	}{
		{name: "unique match", text: src, edits: []Edit{{Old: "func A() int {\n\treturn 1", New: "func A() int {\n\treturn 2"}},
			want: strings.Replace(src, "return 1", "return 2", 1), wantN: 1},
		{name: "several matches", text: src, edits: []Edit{{Old: "return 1", New: "return 2"}},
			problem: Ambiguous, inMsg: []string{"starting on lines 4, 8", "replace_all"}},
		{name: "replace all", text: src, edits: []Edit{{Old: "return 1", New: "return 2", ReplaceAll: true}},
			want: strings.ReplaceAll(src, "return 1", "return 2"), wantN: 2},
		{name: "not found lists similar lines", text: src, edits: []Edit{{Old: "func C() int {", New: "x"}},
			problem: NotFound, inMsg: []string{"line 3 (similar): func A() int {", "line 7 (similar): func B() int {"}},
		{name: "not found but for whitespace", text: src, edits: []Edit{{Old: "func B() int {\n    return 1\n}", New: "x"}},
			problem: NotFound, inMsg: []string{"line 7 (differs in whitespace only): func B() int {"}},
		{name: "nothing similar", text: src, edits: []Edit{{Old: "zzzzqqqq", New: "x"}},
			problem: NotFound, inMsg: []string{"nothing in the file resembles it"}},
		{name: "multi-edit in order", text: src, edits: []Edit{{Old: "func A", New: "func Alpha"}, {Old: "Alpha() int {\n\treturn 1", New: "Alpha() int {\n\treturn 3"}},
			want: strings.Replace(strings.Replace(src, "func A", "func Alpha", 1), "return 1", "return 3", 1), wantN: 2},
		{name: "multi-edit rolls back on a failing edit", text: src, edits: []Edit{{Old: "func A", New: "func Alpha"}, {Old: "missing()", New: "x"}},
			problem: NotFound, inMsg: []string{"edit 2 of 2", "No edit was applied"}},
		{name: "crlf file keeps crlf", text: "one\r\ntwo\r\nthree\r\n", edits: []Edit{{Old: "two\nthree", New: "2\n3\n4"}},
			want: "one\r\n2\r\n3\r\n4\r\n", wantN: 1},
		{name: "crlf given explicitly", text: "one\r\ntwo\r\n", edits: []Edit{{Old: "two\r\n", New: "2\r\n"}},
			want: "one\r\n2\r\n", wantN: 1},
		{name: "no final newline stays", text: "a\nb", edits: []Edit{{Old: "b", New: "c"}}, want: "a\nc", wantN: 1},
		{name: "final newline stays", text: "a\nb\n", edits: []Edit{{Old: "a", New: "z"}}, want: "z\nb\n", wantN: 1},
		{name: "empty old", text: src, edits: []Edit{{Old: "", New: "x"}}, problem: EmptyOld},
		{name: "same strings", text: src, edits: []Edit{{Old: "a", New: "a"}}, problem: Unchanged},
		{name: "no edits", text: src, problem: NoEdits},
		{name: "delete", text: "a\nb\nc\n", edits: []Edit{{Old: "b\n", New: ""}}, want: "a\nc\n", wantN: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Apply(tt.text, tt.edits)
			if tt.problem != "" {
				var e *Error
				if !errors.As(err, &e) || e.Problem != tt.problem {
					t.Fatalf("err = %v, want problem %q", err, tt.problem)
				}
				for _, s := range tt.inMsg {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("message lacks %q:\n%s", s, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Text); diff != "" || res.Replacements != tt.wantN {
				t.Errorf("replacements %d, want %d; text (-want +got):\n%s", res.Replacements, tt.wantN, diff)
			}
		})
	}
}

// An edit followed by its reverse gives back the original bytes, whenever
// the new text occurs once in the edited file.
func FuzzEditReverse(f *testing.F) {
	f.Add("package a\nfunc A() {}\n", "A()", "Alpha()")
	f.Add("one\r\ntwo\r\n", "two\n", "2\n")
	f.Add("a\nb", "b", "")
	f.Add("xx", "x", "y")
	f.Fuzz(func(t *testing.T, text, old, new string) {
		fwd, err := Apply(text, []Edit{{Old: old, New: new}})
		if err != nil {
			return
		}
		if new == "" {
			return // the reverse would have an empty old_string
		}
		if allCRLF(text) != allCRLF(fwd.Text) {
			return // the edit removed the file's last line ending, or changed their style
		}
		back, err := Apply(fwd.Text, []Edit{{Old: new, New: old}})
		var e *Error
		if errors.As(err, &e) && e.Problem == Ambiguous {
			return // new also occurs elsewhere in the edited text
		}
		if err != nil {
			t.Fatalf("reverse of %q→%q in %q: %v", old, new, text, err)
		}
		if back.Text != text {
			t.Fatalf("edit %q→%q and back turned %q into %q", old, new, text, back.Text)
		}
	})
}
