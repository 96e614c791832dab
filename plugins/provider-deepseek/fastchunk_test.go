package deepseek

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestFastChunk: the scanner takes the usual chunk shapes and leaves
// everything else to the full decoder; what it takes decodes as
// encoding/json decodes it.
func TestFastChunk(t *testing.T) {
	usual := `{"id":"f6117a0b","object":"chat.completion.chunk","created":1764657993,"model":"deepseek-chat","system_fingerprint":"fp_e","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`
	for _, tc := range []struct {
		name    string
		payload string
		accept  bool
	}{
		{"text delta", sprintf(usual, `{"content":"##"}`, `null`), true},
		{"role and empty content", sprintf(usual, `{"role":"assistant","content":""}`, `null`), true},
		{"reasoning with null content", sprintf(usual, `{"content":null,"reasoning_content":"We"}`, `null`), true},
		{"finish reason", sprintf(usual, `{"content":""}`, `"length"`), true},
		{"escapes and a surrogate pair", sprintf(usual, `{"content":"\ud83d\ude00 \u00e9\n\"\\\/\b\f\r\t"}`, `null`), true},
		{"raw UTF-8", sprintf(usual, `{"content":"北京 ☃"}`, `null`), true},
		{"white space", " {\n\t\"choices\" : [ { \"index\" : 0 , \"delta\" : { \"content\" : \"x\" } } ] }\r\n", true},
		{"empty object", `{}`, true},
		{"no choices", `{"choices":[]}`, true},
		{"null choices", `{"choices":null}`, true},
		{"second choice", `{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`, true},
		{"created as a float", `{"created":1.5e3,"choices":[]}`, true},

		{"usage object", `{"choices":[],"usage":{"prompt_tokens":3}}`, false},
		{"tool calls", sprintf(usual, `{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}`, `null`), false},
		{"error", `{"error":{"message":"m"}}`, false},
		{"null error", `{"error":null}`, false},
		{"unknown top-level key", `{"choices":[],"extra":1}`, false},
		{"unknown delta key", sprintf(usual, `{"content":"a","refusal":null}`, `null`), false},
		{"key in another case", `{"Choices":[{"index":0,"delta":{"content":"x"}}]}`, false},
		{"escaped key", `{"\u0063hoices":[]}`, false},
		{"duplicate key", `{"choices":[],"choices":[]}`, false},
		{"duplicate delta", `{"choices":[{"delta":{"content":"a"},"delta":{"content":"b"}}]}`, false},
		{"duplicate content", `{"choices":[{"delta":{"content":"a","content":"b"}}]}`, false},
		{"nested ignored value", `{"model":{"name":"x"},"choices":[]}`, false},
		{"logprobs object", `{"choices":[{"logprobs":{"content":[]}}]}`, false},
		{"null delta", `{"choices":[{"index":0,"delta":null}]}`, false},
		{"fractional index", `{"choices":[{"index":1.5}]}`, false},
		{"index with exponent", `{"choices":[{"index":1e0}]}`, false},
		{"negative index", `{"choices":[{"index":-1}]}`, false},
		{"index as a string", `{"choices":[{"index":"0"}]}`, false},
		{"invalid UTF-8", "{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}", false},
		{"invalid UTF-8 after an escape", "{\"choices\":[{\"delta\":{\"content\":\"\\n\xff\"}}]}", false},
		{"lone high surrogate", `{"choices":[{"delta":{"content":"\ud83d"}}]}`, false},
		{"lone low surrogate", `{"choices":[{"delta":{"content":"\ude00"}}]}`, false},
		{"bad escape", `{"choices":[{"delta":{"content":"\x"}}]}`, false},
		{"control character", "{\"choices\":[{\"delta\":{\"content\":\"a\nb\"}}]}", false},
		{"trailing data", `{"choices":[]}{}`, false},
		{"trailing comma", `{"choices":[],}`, false},
		{"truncated", `{"choices":[{"index":0,"delta":{"content":"a`, false},
		{"not an object", `[]`, false},
		{"null", `null`, false},
		{"bad number", `{"created":01,"choices":[]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fast wireChunk
			if got := fastChunk([]byte(tc.payload), &fast); got != tc.accept {
				t.Fatalf("fastChunk(%s) = %v, want %v", tc.payload, got, tc.accept)
			}
			var want, full wireChunk
			errWant := json.Unmarshal([]byte(tc.payload), &want)
			if tc.accept && (errWant != nil || !reflect.DeepEqual(want, fast)) {
				t.Fatalf("fastChunk decodes %+v, encoding/json %+v (%v)", fast, want, errWant)
			}
			// decodeChunk gives encoding/json's answer either way.
			if err := decodeChunk([]byte(tc.payload), &full); (err == nil) != (errWant == nil) || err == nil && !reflect.DeepEqual(want, full) {
				t.Fatalf("decodeChunk decodes %+v (%v), encoding/json %+v (%v)", full, err, want, errWant)
			}
		})
	}
}

// TestFastChunkTakesRecordedTextChunks: every recorded text or reasoning
// chunk without usage takes the fast path, so it cannot silently stop
// being used; and what it takes from the recordings matches encoding/json.
func TestFastChunkTakesRecordedTextChunks(t *testing.T) {
	accepted := 0
	for _, chunk := range fixtureChunks(t) {
		var want, fast wireChunk
		errWant := json.Unmarshal(chunk, &want)
		ok := fastChunk(chunk, &fast)
		if ok {
			accepted++
			if errWant != nil || !reflect.DeepEqual(want, fast) {
				t.Fatalf("%s: fastChunk decodes %+v, encoding/json %+v (%v)", chunk, fast, want, errWant)
			}
			continue
		}
		plain := errWant == nil && want.Usage == nil && want.Error == nil && len(want.Choices) == 1 &&
			want.Choices[0].Delta.ToolCalls == nil && bytes.Contains(chunk, []byte(`"usage":null`)) &&
			!bytes.Contains(chunk, []byte(`"refusal"`)) && !bytes.Contains(chunk, []byte(`"function_call"`))
		if plain {
			t.Errorf("%s: a plain text chunk goes to the full decoder", chunk)
		}
	}
	if accepted < 700 {
		t.Fatalf("only %d recorded chunks take the fast path", accepted)
	}
	t.Logf("%d recorded chunks take the fast path", accepted)
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
