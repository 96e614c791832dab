// Package eventreads is the fixture of TestUntypedEventReadsAreCaught:
// every line marked "want" reads an event's data around core/event.
package eventreads

import (
	"bytes"
	"encoding/json"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
)

// untyped is the renderer as it was: a map, indexed by string keys.
func untyped(ev session.Event) string {
	var d map[string]any
	_ = json.Unmarshal(ev.Data, &d) // want
	s, _ := d["status"].(string)
	return s
}

// alias copies the data out first and decodes it elsewhere.
func alias(evs []session.Event) any {
	raw := evs[0].Data // want
	var v any
	_ = json.NewDecoder(bytes.NewReader(raw)).Decode(&v)
	return v
}

type wrapped struct{ session.Event }

// embedded reaches the field through an embedding struct.
func embedded(w *wrapped) int { return len(w.Data) } // want

// typed decodes through core/event: allowed.
func typed(ev session.Event) (event.Data, error) { return event.DecodeData(ev.Type, ev.Data) }

// write sets the data: allowed.
func write(ev *session.Event) { ev.Data = json.RawMessage(`{}`) }

// whole hands the event on as it is: allowed.
func whole(ev session.Event) ([]byte, error) { return json.Marshal(ev) }

var _ = []any{untyped, alias, embedded, typed, write, whole}
