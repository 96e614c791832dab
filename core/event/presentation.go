package event

import (
	"encoding/json"
	"fmt"

	"github.com/harness-agent/harness/sdk"
)

// Presentation kinds (ToolResult.Presentation's "kind", docs/events.md
// "Presentation views").
const (
	ViewTerminal = "terminal"
	ViewDiff     = "diff"
	ViewSearch   = "search"
	ViewFile     = "file"
	ViewText     = "text"
)

// MarshalPresentation encodes a presentation view as tool.result carries
// it: a JSON object with its kind first,
// {"kind":"terminal","command":…,"exit_code":…,"output":…}. A nil view is
// nil.
func MarshalPresentation(p sdk.Presentation) json.RawMessage {
	if p == nil {
		return nil
	}
	body, err := json.Marshal(p)
	if err != nil || len(body) < 2 || body[0] != '{' {
		return nil
	}
	kind, _ := json.Marshal(p.PresentationKind())
	out := append([]byte(`{"kind":`), kind...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...)
}

// DecodePresentation is the view MarshalPresentation encoded: one of the
// sdk view types (a value, not a pointer), nil for no view (absent or
// null). A kind this harness does not know is an error, as is a field of
// the wrong type.
func DecodePresentation(raw json.RawMessage) (sdk.Presentation, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("presentation: %w", err)
	}
	switch head.Kind {
	case ViewTerminal:
		return decodeView[sdk.TerminalView](raw)
	case ViewDiff:
		return decodeView[sdk.DiffView](raw)
	case ViewSearch:
		return decodeView[sdk.SearchView](raw)
	case ViewFile:
		return decodeView[sdk.FileView](raw)
	case ViewText:
		return decodeView[sdk.TextView](raw)
	}
	return nil, fmt.Errorf("presentation: unknown kind %q (the known kinds are in docs/events.md, Presentation views)", head.Kind)
}

func decodeView[T sdk.Presentation](raw json.RawMessage) (sdk.Presentation, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("presentation %s: %w", v.PresentationKind(), err)
	}
	return v, nil
}

// View is the result's presentation view, decoded (DecodePresentation).
func (r ToolResult) View() (sdk.Presentation, error) { return DecodePresentation(r.Presentation) }

// Views returns a zero value of every presentation view, in the order of
// docs/events.md.
func Views() []sdk.Presentation {
	return []sdk.Presentation{sdk.TerminalView{}, sdk.DiffView{}, sdk.SearchView{}, sdk.FileView{}, sdk.TextView{}}
}
