package tools

import (
	"reflect"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	const key, longer = "sk-0123456789abcdef", "sk-0123456789abcdef-extended"
	r := newRedactor([]string{key, longer, "short"})
	tests := []struct {
		name     string
		in, want sdk.Result
	}{
		{"content and error",
			sdk.Result{Content: "api_key = \"" + key + "\"", Err: &sdk.Error{Kind: sdk.KindInternal, Message: "bad " + key}},
			sdk.Result{Content: "api_key = \"" + Redacted + "\"", Err: &sdk.Error{Kind: sdk.KindInternal, Message: "bad " + Redacted}}},
		{"the longest secret first", sdk.Result{Content: longer}, sdk.Result{Content: Redacted}},
		{"short values are left alone", sdk.Result{Content: "short"}, sdk.Result{Content: "short"}},
		{"terminal view", sdk.Result{Presentation: sdk.TerminalView{Command: "cat a.hcl", Output: key + "\n"}},
			sdk.Result{Presentation: sdk.TerminalView{Command: "cat a.hcl", Output: Redacted + "\n"}}},
		{"search hits", sdk.Result{Presentation: sdk.SearchView{Query: "api", Total: 1, Hits: []sdk.SearchHit{{Path: "a.hcl", Line: 2, Text: key}}}},
			sdk.Result{Presentation: sdk.SearchView{Query: "api", Total: 1, Hits: []sdk.SearchHit{{Path: "a.hcl", Line: 2, Text: Redacted}}}}},
		{"diff and text", sdk.Result{Presentation: sdk.DiffView{Path: "x", Unified: "+" + key}},
			sdk.Result{Presentation: sdk.DiffView{Path: "x", Unified: "+" + Redacted}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.result(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("result = %+v, want %+v", got, tt.want)
			}
		})
	}
	if newRedactor([]string{"short", ""}) != nil {
		t.Error("a redactor without secrets worth redacting is not nil")
	}
	var none *redactor
	if got := none.result(sdk.Result{Content: key}); got.Content != key {
		t.Error("a nil redactor changed the result")
	}
}
