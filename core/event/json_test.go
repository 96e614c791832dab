package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// FuzzAppendString: appendString writes what encoding/json writes for
// any string, valid UTF-8 or not.
func FuzzAppendString(f *testing.F) {
	f.Add("plain text, long enough to take the word-at-a-time path\n")
	f.Add("a\n<b>&\"\\\x00\x1f\x7f\u2028\u2029\xff\xe2\x80 é 日本")
	f.Add(strings.Repeat("12345678", 3) + "\t")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	})
}

// FuzzToolResultAppendJSON: a tool.result encodes as json.Marshal
// encodes it, whichever fields are set.
func FuzzToolResultAppendJSON(f *testing.F) {
	f.Add("call_1", "read_file", true, "line 1\nline <2>\n", "", "", int64(12), uint8(0))
	f.Add("c", "terminal", false, "\xff\x00", "denied", `{ "kind" : "terminal", "x": "<&>" }`, int64(-1), uint8(3))
	f.Fuzz(func(t *testing.T, id, tool string, ok bool, content, errMsg, pres string, ms int64, action uint8) {
		r := ToolResult{CallID: id, Tool: tool, OK: ok, Content: content, DurationMS: ms, Presentation: json.RawMessage(pres)}
		if errMsg != "" {
			r.Error = &ErrorData{Kind: sdk.KindDenied, Message: errMsg}
		}
		if action%2 == 1 {
			r.ActionID = "act-" + id
		}
		checkSameJSON(t, r)
	})
}

// TestToolResultAppendJSONCoversEveryField fills every field of
// ToolResult, so that a field added to it without AppendJSON writing it
// fails here.
func TestToolResultAppendJSONCoversEveryField(t *testing.T) {
	var r ToolResult
	v := reflect.ValueOf(&r).Elem()
	for i := range v.NumField() {
		fill(t, v.Field(i), v.Type().Field(i).Name)
	}
	checkSameJSON(t, r)
}

func fill(t *testing.T, f reflect.Value, name string) {
	t.Helper()
	switch {
	case f.Type() == reflect.TypeFor[json.RawMessage]():
		f.Set(reflect.ValueOf(json.RawMessage(`{"kind": "diff", "path": "<a&b>"}`)))
	case f.Kind() == reflect.String:
		f.SetString(name + " <&> \u2028")
	case f.Kind() == reflect.Bool:
		f.SetBool(true)
	case f.Kind() == reflect.Int64 || f.Kind() == reflect.Int:
		f.SetInt(42)
	case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
		f.Set(reflect.New(f.Type().Elem()))
		for i := range f.Elem().NumField() {
			fill(t, f.Elem().Field(i), name+"."+f.Elem().Type().Field(i).Name)
		}
	default:
		t.Fatalf("field %s of kind %s: teach fill (and check AppendJSON writes it)", name, f.Kind())
	}
}

func checkSameJSON(t *testing.T, r ToolResult) {
	t.Helper()
	want, wantErr := json.Marshal(r)
	got, gotErr := r.AppendJSON(nil)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%+v: AppendJSON error %v, json.Marshal error %v", r, gotErr, wantErr)
	}
	if wantErr == nil && !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON wrote\n%s\njson.Marshal writes\n%s", got, want)
	}
	viaStore, err := session.EncodeData(r)
	if wantErr == nil && (err != nil || !bytes.Equal(viaStore, want)) {
		t.Fatalf("session.EncodeData: %s, %v", viaStore, err)
	}
}

// BenchmarkToolResultJSON encodes the tool.result of a 32 KiB file read
// (the executor's cap on what the model gets) with AppendJSON and with
// encoding/json.
func BenchmarkToolResultJSON(b *testing.B) {
	r := ToolResult{CallID: "call_1", Tool: "read_file", OK: true, DurationMS: 3,
		Content: strings.Repeat(strings.Repeat("x", 79)+"\n", 410)[:32<<10]}
	b.Run("AppendJSON", func(b *testing.B) {
		b.SetBytes(int64(len(r.Content)))
		var buf []byte
		for b.Loop() {
			buf, _ = r.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(r.Content)))
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
