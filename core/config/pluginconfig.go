package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaPrinter prints the validator's messages, made on first use.
var schemaPrinter = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// configSchema is the part of a plugin's JSON Schema that steers the decoding of HCL values;
// everything else (enum, required, bounds, patterns…) is left to the validator.
type configSchema struct {
	Type                 json.RawMessage          `json:"type"`
	Properties           map[string]*configSchema `json:"properties"`
	Items                json.RawMessage          `json:"items"`
	AdditionalProperties json.RawMessage          `json:"additionalProperties"`
	// Format is one of the formats the host checks (schema.FormatPath…);
	// others are left to the validator, which treats them as annotations.
	Format string `json:"format"`
}

// typeName returns the schema's type, ignoring "null"; "" when it has none or several.
func (s *configSchema) typeName() string {
	if s == nil || len(s.Type) == 0 {
		return ""
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(s.Type, &many) != nil {
		return ""
	}
	many = slices.DeleteFunc(many, func(t string) bool { return t == "null" })
	if len(many) == 1 {
		return many[0]
	}
	return ""
}

func (s *configSchema) items() *configSchema {
	var it configSchema
	if s == nil || len(s.Items) == 0 || json.Unmarshal(s.Items, &it) != nil {
		return nil
	}
	return &it
}

// extra is the schema of the properties an object does not declare, when
// additionalProperties is a schema (schema.StringMap); nil otherwise.
func (s *configSchema) extra() *configSchema {
	var ex configSchema
	if s == nil || len(s.AdditionalProperties) == 0 || json.Unmarshal(s.AdditionalProperties, &ex) != nil {
		return nil
	}
	return &ex
}

// allowsExtra reports whether properties that are not declared are accepted: only when
// additionalProperties says so, so that a typo in a config block is an error.
func (s *configSchema) allowsExtra() bool {
	if s == nil || len(s.AdditionalProperties) == 0 {
		return false
	}
	var b bool
	if json.Unmarshal(s.AdditionalProperties, &b) == nil {
		return b
	}
	return true // a schema for the extra properties
}

// DecodePluginConfig decodes a plugin's config block against the JSON Schema the plugin
// reports for it (an object with typed properties) and returns the config as JSON. Values
// are converted to the property's type the way HCL converts (5 → "5" for a string), unknown
// attributes are errors, and the result is validated against the whole schema (required,
// enum, bounds…). A nil body decodes as an empty block. Expressions may call the functions
// of configuration files, file() relative to the file the block is in. Strings of the
// formats the host knows (schema.FormatPath, FormatDuration, FormatHTTPURL) are checked,
// and paths resolved against that file's directory.
func DecodePluginConfig(body hcl.Body, schemaJSON []byte) (json.RawMessage, hcl.Diagnostics) {
	return decodeConfig(body, schemaJSON, pluginConfigEnv(body))
}

// decodeEnv is what decoding a block needs besides its body and schema.
type decodeEnv struct {
	ctx *hcl.EvalContext
	dir string // absolute directory of the file the block is in: where relative paths start
	// record receives each file a path setting names (nil: none is kept),
	// so that the configuration's fingerprint covers it.
	record func(path string, data []byte)
	// builtinSchema says the schema is a built-in's (Options.ProviderSchemas):
	// it is not checked against the metaschema (see compileConfigSchema).
	builtinSchema bool
}

func decodeConfig(body hcl.Body, schemaJSON []byte, env decodeEnv) (json.RawMessage, hcl.Diagnostics) {
	var blockRange *hcl.Range
	if body != nil {
		blockRange = body.MissingItemRange().Ptr()
	}
	validator, root, err := compileConfigSchema(schemaJSON, env.builtinSchema)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid plugin config schema",
			Detail:   fmt.Sprintf("The plugin reports a config schema that cannot be used: %s.", err),
			Subject:  blockRange,
		}}
	}

	var diags hcl.Diagnostics
	attributes := hcl.Attributes{}
	if body != nil {
		attributes, diags = body.JustAttributes()
	}
	obj := map[string]any{}
	// failed holds the attributes already reported, so that validation does not report
	// them again as missing or invalid.
	failed := map[string]bool{}
	for _, name := range sortedKeys(attributes) {
		attr := attributes[name]
		failed[name] = true
		prop, known := root.Properties[name]
		if !known && !root.allowsExtra() {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unsupported argument",
				Detail: fmt.Sprintf("config has no attribute %q.%s", name,
					didYouMean(name, sortedKeys(root.Properties))),
				Subject: attr.NameRange.Ptr(),
			})
			continue
		}
		v, d := attr.Expr.Value(env.ctx)
		renameFileErrors(d)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		jv, err := conform(v, prop, name, env)
		if err != nil {
			summary, detail := "Incorrect attribute value type", err.Error()+"."
			var fe *formatError
			if errors.As(err, &fe) {
				summary, detail = fe.summary, fe.detail
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  summary,
				Detail:   detail,
				Subject:  attr.Expr.Range().Ptr(),
			})
			continue
		}
		obj[name] = jv
		delete(failed, name)
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid plugin config",
			Detail:   err.Error(),
			Subject:  blockRange,
		})
	}
	diags = append(diags, validateConfig(validator, out, attributes, failed, blockRange)...)
	if diags.HasErrors() {
		return nil, diags
	}
	return out, diags
}

// compileConfigSchema compiles a plugin's config schema and decodes the part
// of it that steers decoding. A built-in's schema (builtin) is added as
// trusted: the build's own constant, which its tests validate, is not checked
// against the metaschema again in every run.
func compileConfigSchema(schemaJSON []byte, builtin bool) (*jsonschema.Schema, *configSchema, error) {
	var root configSchema
	if err := json.Unmarshal(schemaJSON, &root); err != nil {
		return nil, nil, err
	}
	if t := root.typeName(); t != "object" {
		return nil, nil, fmt.Errorf("its type is %q, not \"object\"", t)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "plugin-config.schema.json"
	add := c.AddResource
	if builtin {
		add = c.AddTrustedResource
	}
	if err := add(url, doc); err != nil {
		return nil, nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, nil, err
	}
	return sch, &root, nil
}

// pluginConfigEnv gives a config block the functions of the file it is written in and
// that file's directory for relative paths.
func pluginConfigEnv(body hcl.Body) decodeEnv {
	shownDir := "."
	if body != nil {
		if f := body.MissingItemRange().Filename; f != "" {
			shownDir = filepath.Dir(f)
		}
	}
	dir, err := filepath.Abs(shownDir)
	if err != nil {
		dir = shownDir
	}
	return decodeEnv{ctx: evalContext(dir, shownDir, os.Getenv, nil), dir: dir}
}

// conform converts an HCL value to the JSON value a property's schema asks for.
func conform(v cty.Value, s *configSchema, path string, env decodeEnv) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("%s: the value is not known", path)
	}
	ty := v.Type()
	switch s.typeName() {
	case "string":
		cv, err := convert.Convert(v, cty.String)
		if err != nil {
			return nil, fmt.Errorf("%s: a string is required, not %s", path, ty.FriendlyName())
		}
		return checkFormat(cv.AsString(), s.Format, path, env)
	case "number", "integer":
		cv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return nil, fmt.Errorf("%s: a number is required, not %s", path, ty.FriendlyName())
		}
		bf := cv.AsBigFloat()
		if s.typeName() == "integer" {
			if !bf.IsInt() {
				return nil, fmt.Errorf("%s: a whole number is required, not %s", path, bf.Text('g', -1))
			}
			return json.Number(bf.Text('f', 0)), nil
		}
		return json.Number(bf.Text('g', -1)), nil
	case "boolean":
		cv, err := convert.Convert(v, cty.Bool)
		if err != nil {
			return nil, fmt.Errorf("%s: true or false is required, not %s", path, ty.FriendlyName())
		}
		return cv.True(), nil
	case "array":
		if !ty.IsListType() && !ty.IsTupleType() && !ty.IsSetType() {
			return nil, fmt.Errorf("%s: a list is required, not %s", path, ty.FriendlyName())
		}
		out := make([]any, 0, v.LengthInt())
		for i, e := range v.AsValueSlice() {
			je, err := conform(e, s.items(), fmt.Sprintf("%s[%d]", path, i), env)
			if err != nil {
				return nil, err
			}
			out = append(out, je)
		}
		return out, nil
	case "object":
		if !ty.IsObjectType() && !ty.IsMapType() {
			return nil, fmt.Errorf("%s: an object is required, not %s", path, ty.FriendlyName())
		}
		out := map[string]any{}
		for k, e := range v.AsValueMap() {
			prop, known := s.Properties[k]
			if !known && len(s.Properties) > 0 && !s.allowsExtra() {
				return nil, fmt.Errorf("%s: unsupported attribute %q%s", path, k, didYouMean(k, sortedKeys(s.Properties)))
			}
			if !known {
				prop = s.extra()
			}
			je, err := conform(e, prop, path+"."+k, env)
			if err != nil {
				return nil, err
			}
			out[k] = je
		}
		return out, nil
	default:
		raw, err := ctyjson.Marshal(v, ty)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", path, err)
		}
		return json.RawMessage(raw), nil
	}
}

// validateConfig validates the decoded config and points each failure at the attribute
// it concerns, or at the block for what concerns the block as a whole (required).
func validateConfig(sch *jsonschema.Schema, config []byte, attributes hcl.Attributes, failed map[string]bool, blockRange *hcl.Range) hcl.Diagnostics {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(config))
	if err == nil {
		err = sch.Validate(inst)
	}
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid plugin config", Detail: err.Error(), Subject: blockRange}}
	}
	var diags hcl.Diagnostics
	for _, leaf := range leafErrors(ve) {
		if len(leaf.InstanceLocation) > 0 && failed[leaf.InstanceLocation[0]] {
			continue
		}
		d := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid plugin config value",
			Subject:  blockRange,
		}
		where := "config"
		if len(leaf.InstanceLocation) > 0 {
			where = "config." + strings.Join(leaf.InstanceLocation, ".")
			if attr, ok := attributes[leaf.InstanceLocation[0]]; ok {
				d.Subject = attr.Expr.Range().Ptr()
			}
		}
		if req, ok := leaf.ErrorKind.(*kind.Required); ok {
			missing := req.Missing
			if len(leaf.InstanceLocation) == 0 {
				missing = slices.DeleteFunc(slices.Clone(missing), func(n string) bool { return failed[n] })
				if len(missing) == 0 {
					continue
				}
			}
			d.Summary = "Missing required argument"
			d.Detail = fmt.Sprintf("%s: the plugin requires %s.", where, quotedList(missing))
		} else {
			d.Detail = fmt.Sprintf("%s: %s.", where, leaf.ErrorKind.LocalizedString(schemaPrinter()))
		}
		diags = append(diags, d)
	}
	return diags
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

func quotedList(items []string) string {
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = fmt.Sprintf("%q", it)
	}
	return strings.Join(quoted, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
