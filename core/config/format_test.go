package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// golden compares got with the golden file at path, rewriting it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update refreshes it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestFormatGolden(t *testing.T) {
	t.Parallel()
	inputs, err := filepath.Glob("testdata/fmt/*.in.hcl")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, diags := FormatFile(src, in)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			golden(t, strings.TrimSuffix(in, ".in.hcl")+".golden.hcl", got)
			if again := Format(got); !bytes.Equal(again, got) {
				t.Errorf("formatting is not idempotent:\n%s", again)
			}
			tokens, _ := hclsyntax.LexConfig(src, in, hcl.InitialPos)
			for _, tok := range tokens {
				if tok.Type != hclsyntax.TokenComment {
					continue
				}
				if comment := bytes.TrimSpace(tok.Bytes); !bytes.Contains(got, comment) {
					t.Errorf("comment %q lost", comment)
				}
			}
		})
	}
}

func TestFormatFileRefusesInvalidSyntax(t *testing.T) {
	t.Parallel()
	got, diags := FormatFile([]byte("agent \"a\" {\n  model = \n"), "bad.hcl")
	if !diags.HasErrors() || got != nil {
		t.Errorf("FormatFile of a broken file = %q, %v; want nil and errors", got, diags)
	}
}
