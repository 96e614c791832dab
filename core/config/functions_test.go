package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/harness-agent/harness/internal/testkit"
)

func TestFunctions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "prompt.md"), "hello\n")
	if err := os.WriteFile(filepath.Join(dir, "binary.bin"), []byte{0xff, 0xfe, 0x00}, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SET": "value"}
	ctx := evalContext(dir, "cfg", func(name string) string { return env[name] }, nil)

	tests := []struct {
		expr    string
		want    string
		summary string // expected error summary; "" = no error
		detail  string
	}{
		{expr: `env("SET")`, want: "value"},
		{expr: `env("UNSET")`, want: ""},
		{expr: `file("prompt.md")`, want: "hello\n"},
		{expr: `file("` + filepath.ToSlash(filepath.Join(dir, "prompt.md")) + `")`, want: "hello\n"},
		{expr: `trimspace(upper(file("prompt.md")))`, want: "HELLO"},
		{expr: `join("-", split(",", "a,b"))`, want: "a-b"},
		{expr: `format("%s=%d", "n", 2)`, want: "n=2"},
		{expr: `jsonencode({ a = [1, true] })`, want: `{"a":[1,true]}`},
		{expr: `tostring(length(concat(["a"], ["b", "c"])))`, want: "3"},
		{expr: `file("missing.md")`, summary: "Unreadable file", detail: "cannot read cfg/missing.md: no such file"},
		{expr: `file(".")`, summary: "Unreadable file", detail: "not a regular file"},
		{expr: `file("binary.bin")`, summary: "Unreadable file", detail: "not UTF-8 text"},
		{expr: `nope("x")`, summary: "Call to unknown function"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			t.Parallel()
			expr, diags := hclsyntax.ParseExpression([]byte(tt.expr), "test.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v, diags := expr.Value(ctx)
			renameFileErrors(diags)
			if tt.summary == "" {
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				if got := v.AsString(); got != tt.want {
					t.Errorf("= %q, want %q", got, tt.want)
				}
				return
			}
			if len(diags) != 1 || diags[0].Summary != tt.summary || !strings.Contains(diags[0].Detail, tt.detail) {
				t.Errorf("diagnostics %v, want %s containing %q", diags, tt.summary, tt.detail)
			}
		})
	}
}
