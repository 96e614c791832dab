package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// canonical returns args as canonical JSON (object keys sorted, no
// insignificant space, numbers as written, no HTML escaping) and as the
// decoded value the validator takes. Empty arguments are the empty object
// (models send "" for tools without parameters). Identical calls have
// identical canonical arguments.
func canonical(args []byte) (json.RawMessage, any, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		return json.RawMessage("{}"), map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("arguments are not valid JSON: data after the value")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, nil, errors.New("arguments must be a JSON object")
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, nil, fmt.Errorf("arguments: %v", err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), v, nil
}
