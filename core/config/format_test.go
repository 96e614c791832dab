package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/harness-agent/harness/internal/testkit"
)

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
			testkit.Golden(t, strings.TrimSuffix(in, ".in.hcl")+".golden.hcl", got)
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
