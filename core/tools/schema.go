package tools

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// maxSchemaErrors bounds how many problems one invalid_args message lists:
// enough for the model to fix its call, short enough to read.
const maxSchemaErrors = 3

// compileSchema compiles the JSON Schema doc of tool name. A built-in
// tool's schema (builtin) is part of the build, which its tests validate
// (cmd/harness TestBuiltinToolSchemasValid): it is compiled without being
// checked against the metaschema again, so that a run whose tools are all
// built-in never compiles the metaschemas (about 2 ms).
func compileSchema(name string, doc []byte, builtin bool) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "harness:///tools/" + name + ".json"
	add := c.AddResource
	if builtin {
		add = c.AddTrustedResource
	}
	if err := add(url, v); err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema does not compile: %w", name, err)
	}
	return sch, nil
}

// WarmSchemas compiles the metaschemas the first input schema needs (a
// draft's are compiled on its first use), so that a run can pay for them
// while its plugins start instead of on its first tool registration.
func WarmSchemas() {
	_, _ = compileSchema("warm", []byte(`{"type": "object"}`), false)
}

// validateJSON checks the JSON doc against sch; see validate.
func validateJSON(sch *jsonschema.Schema, doc []byte) string {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return "not valid JSON: " + err.Error()
	}
	return validate(sch, v)
}

// validate checks v (decoded with json.Number numbers) against sch and
// returns "" or a short message the model can act on: "at /offset: got
// string, want integer".
func validate(sch *jsonschema.Schema, v any) string {
	err := sch.Validate(v)
	if err == nil {
		return ""
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	leaves := leafErrors(ve)
	msgs := make([]string, 0, maxSchemaErrors)
	for _, l := range leaves {
		if len(msgs) == maxSchemaErrors {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(leaves)-maxSchemaErrors))
			break
		}
		msgs = append(msgs, "at /"+strings.Join(l.InstanceLocation, "/")+": "+l.ErrorKind.LocalizedString(printer))
	}
	return strings.Join(msgs, "; ")
}

func leafErrors(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}
