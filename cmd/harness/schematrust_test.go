package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harness-agent/harness/sdk"
)

// TestBuiltinSchemasValid: every schema a built-in reports — each tool's
// input schema, each provider's settings schema — is valid JSON Schema. It
// is checked against the metaschema here because the host compiles a
// built-in's schemas as trusted, without that check (core/tools
// compileSchema, config.Options.ProviderSchemas).
func TestBuiltinSchemasValid(t *testing.T) {
	t.Parallel()
	check := func(what string, doc []byte) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Errorf("%s: not JSON: %v", what, err)
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		if err := c.AddResource("schema.json", v); err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		if _, err := c.Compile("schema.json"); err != nil {
			t.Errorf("%s: not valid JSON Schema: %v", what, err)
		}
	}
	n := 0
	for _, b := range builtins {
		switch {
		case b.tools != nil:
			info, err := b.tools().Describe(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", b.Name, err)
			}
			for _, tool := range info.Tools {
				check(b.Name+" tool "+tool.Name, tool.InputSchema)
				n++
			}
		case b.Kind == sdk.PluginProvider:
			if s, ok := builtinProviderSchema(b.Name); ok && s != nil {
				check(b.Name+" settings", s)
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no built-in schema checked")
	}
}
