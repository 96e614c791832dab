// Package schema is a small DSL for the JSON Schema of a tool's input.
//
// A tool's schema is written once, with this DSL, and the same bytes are
// shown to the model and used by the host to validate arguments before the
// tool runs:
//
//	schema.Object(
//		schema.String("path", "File to read, relative to the workspace.").Required(),
//		schema.Integer("offset", "First line to read, 1-based.").Min(1),
//	).JSON()
package schema

import (
	"encoding/json"
)

// Prop is one property of an object schema.
type Prop struct {
	name     string
	body     map[string]any
	required bool
}

func prop(name, typ, description string) Prop {
	return Prop{name: name, body: map[string]any{"type": typ, "description": description}}
}

// String declares a string property.
func String(name, description string) Prop { return prop(name, "string", description) }

// Integer declares an integer property.
func Integer(name, description string) Prop { return prop(name, "integer", description) }

// Number declares a number property.
func Number(name, description string) Prop { return prop(name, "number", description) }

// Boolean declares a boolean property.
func Boolean(name, description string) Prop { return prop(name, "boolean", description) }

// Array declares an array property whose items follow items.
func Array(name, description string, items Schema) Prop {
	p := prop(name, "array", description)
	p.body["items"] = items.body
	return p
}

// Nested declares an object property.
func Nested(name, description string, s Schema) Prop {
	p := Prop{name: name, body: map[string]any{}}
	for k, v := range s.body {
		p.body[k] = v
	}
	p.body["description"] = description
	return p
}

// AnyObject declares a property holding any JSON object.
func AnyObject(name, description string) Prop { return prop(name, "object", description) }

// StringMap declares an object property whose values are strings (HTTP
// headers, environment variables): in a configuration block the host
// converts each value to a string the way HCL does (5 → "5").
func StringMap(name, description string) Prop {
	p := prop(name, "object", description)
	p.body["additionalProperties"] = map[string]any{"type": "string"}
	return p
}

// Required marks the property as required.
func (p Prop) Required() Prop { p.required = true; return p }

// Secret marks the property as a secret ("writeOnly": true): an API key
// or token in a provider's settings. The host never shows its value: it is
// redacted from events, errors and logs.
func (p Prop) Secret() Prop { p.body["writeOnly"] = true; return p }

// Formats of string properties that the host checks (and, for FormatPath,
// resolves) when it decodes a plugin's config or settings block. They are
// harness's own names, not JSON Schema's standard formats.
const (
	// FormatPath is a file path: the host resolves a relative path against
	// the directory of the configuration file that sets it, refuses a path
	// that is not a readable file, sends the absolute path and counts the
	// file as part of the configuration (its fingerprint, and protected from
	// the agent's writes).
	FormatPath = "path"
	// FormatDuration is a Go duration such as "90s" or "1m30s", not negative.
	FormatDuration = "go-duration"
	// FormatHTTPURL is an absolute http:// or https:// URL.
	FormatHTTPURL = "http-url"
)

// Path marks a string property as a file path (FormatPath).
func (p Prop) Path() Prop { p.body["format"] = FormatPath; return p }

// Duration marks a string property as a Go duration (FormatDuration).
func (p Prop) Duration() Prop { p.body["format"] = FormatDuration; return p }

// HTTPURL marks a string property as an http:// or https:// URL
// (FormatHTTPURL).
func (p Prop) HTTPURL() Prop { p.body["format"] = FormatHTTPURL; return p }

// Enum restricts the property to the given values.
func (p Prop) Enum(values ...string) Prop { p.body["enum"] = values; return p }

// Min sets the minimum of a number or integer property.
func (p Prop) Min(v float64) Prop { p.body["minimum"] = v; return p }

// Max sets the maximum of a number or integer property.
func (p Prop) Max(v float64) Prop { p.body["maximum"] = v; return p }

// Default documents the default value.
func (p Prop) Default(v any) Prop { p.body["default"] = v; return p }

// Schema is a JSON Schema value.
type Schema struct {
	body map[string]any
}

// Object is a schema of an object with the given properties; properties
// not declared are refused.
func Object(props ...Prop) Schema {
	properties := map[string]any{}
	required := []string{}
	for _, p := range props {
		properties[p.name] = p.body
		if p.required {
			required = append(required, p.name)
		}
	}
	body := map[string]any{"type": "object", "properties": properties, "additionalProperties": false}
	if len(required) > 0 {
		body["required"] = required
	}
	return Schema{body: body}
}

// Items is an item schema for Array: a single type with a description.
func Items(typ string) Schema { return Schema{body: map[string]any{"type": typ}} }

// JSON returns the schema's JSON encoding (keys sorted, so stable bytes).
func (s Schema) JSON() json.RawMessage {
	b, err := json.Marshal(s.body)
	if err != nil {
		panic("schema: " + err.Error()) // only maps, strings, numbers and slices: cannot fail
	}
	return b
}
