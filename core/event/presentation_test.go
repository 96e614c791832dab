package event

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestPresentationRoundTrips(t *testing.T) {
	t.Parallel()
	views := viewSamples()
	if len(views) != len(Views()) {
		t.Fatalf("the test covers %d views, Views has %d", len(views), len(Views()))
	}
	for i, v := range views {
		if reflect.TypeOf(v) != reflect.TypeOf(Views()[i]) {
			t.Errorf("view %d is %T, Views has %T", i, v, Views()[i])
		}
		raw := MarshalPresentation(v)
		if !strings.HasPrefix(string(raw), `{"kind":"`+v.PresentationKind()+`"`) {
			t.Errorf("%T encodes as %s: the kind comes first", v, raw)
		}
		got, err := ToolResult{Presentation: raw}.View()
		if err != nil || !reflect.DeepEqual(got, v) {
			t.Errorf("%s decoded as %#v, %v; want %#v", raw, got, err, v)
		}
	}
}

func TestDecodePresentationRejectsWhatItDoesNotKnow(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{``, `null`} {
		if p, err := DecodePresentation(json.RawMessage(raw)); p != nil || err != nil {
			t.Errorf("%q: %#v, %v; want no view", raw, p, err)
		}
	}
	if _, err := DecodePresentation(json.RawMessage(`{"kind":"image","src":"x"}`)); err == nil || !strings.Contains(err.Error(), `unknown kind "image"`) {
		t.Errorf("an unknown kind: %v", err)
	}
	if _, err := DecodePresentation(json.RawMessage(`{"kind":"terminal","exit_code":"one"}`)); err == nil {
		t.Error("an exit code that is a string decoded")
	}
}

func TestAsChecksTheType(t *testing.T) {
	t.Parallel()
	ev := eventOf(t, 7, SessionEnded{Status: "completed", Turns: 2})
	if d, err := As[SessionEnded](ev); err != nil || d.Status != "completed" || d.Turns != 2 {
		t.Errorf("As[SessionEnded]: %#v, %v", d, err)
	}
	if _, err := As[SessionStarted](ev); err == nil || !strings.Contains(err.Error(), "event 7 is session.ended, not session.started") {
		t.Errorf("As of the wrong type: %v", err)
	}
}
