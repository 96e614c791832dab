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
	for _, tc := range fastChunkCases() {
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

// fastChunkCase is a chunk payload and whether fastChunk takes it.
type fastChunkCase struct {
	name    string
	payload string
	accept  bool
}

// fastChunkCases are the payloads of TestFastChunk: the usual shapes
// first, then those left to the full decoder.
func fastChunkCases() []fastChunkCase {
	usual := `{"id":"f6117a0b","object":"chat.completion.chunk","created":1764657993,"model":"deepseek-chat","system_fingerprint":"fp_e","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`
	return []fastChunkCase{
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

		{"usage object", `{"choices":[],"usage":{"prompt_tokens":3}}`, true},
		{"finish with usage", sprintf(usual[:len(usual)-len(`"usage":null}`)], `{"content":"","reasoning_content":null}`, `"tool_calls"`) +
			`"usage":{"prompt_tokens":339,"completion_tokens":83,"total_tokens":422,"prompt_tokens_details":{"cached_tokens":320},"completion_tokens_details":{"reasoning_tokens":39},"prompt_cache_hit_tokens":320,"prompt_cache_miss_tokens":19}}`, true},
		{"usage with nulls", `{"usage":{"prompt_tokens":null,"prompt_cache_hit_tokens":null,"prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":null}}}`, true},
		{"usage with empty details", `{"usage":{"prompt_tokens":-0,"completion_tokens":0,"prompt_tokens_details":{},"completion_tokens_details":{}}}`, true},
		{"tool call start", sprintf(usual, `{"tool_calls":[{"index":0,"id":"call_00_ioIn7yN9p1ZOMNpDLwd4MgAF","type":"function","function":{"name":"weather","arguments":""}}]}`, `null`), true},
		{"tool call arguments", sprintf(usual, `{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"北京\"}"}}]}`, `null`), true},
		{"tool calls with nulls", sprintf(usual, `{"content":null,"tool_calls":[{"index":null,"id":null,"type":null,"function":{"name":null,"arguments":null}},{"function":null},{}]}`, `null`), true},
		{"no tool calls", sprintf(usual, `{"tool_calls":[]}`, `null`), true},
		{"null tool calls", sprintf(usual, `{"tool_calls":null}`, `null`), true},
		{"two tool calls", sprintf(usual, `{"tool_calls":[{"index":0,"function":{"arguments":"{}"}},{"index":1,"id":"b","function":{"name":"n"}}]}`, `null`), true},

		{"fractional token count", `{"usage":{"prompt_tokens":3.0}}`, false},
		{"token count with exponent", `{"usage":{"completion_tokens":1e3}}`, false},
		{"token count beyond 18 digits", `{"usage":{"prompt_tokens":1234567890123456789}}`, false},
		{"token count with a leading zero", `{"usage":{"prompt_tokens":012}}`, false},
		{"token count as a string", `{"usage":{"prompt_tokens":"3"}}`, false},
		{"unknown usage key", `{"usage":{"prompt_tokens":3,"cost":1}}`, false},
		{"unknown details key", `{"usage":{"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":null}}}`, false},
		{"usage as an array", `{"usage":[]}`, false},
		{"nested total", `{"usage":{"total_tokens":{"n":1}}}`, false},
		{"duplicate usage key", `{"usage":{"prompt_tokens":1,"prompt_tokens":2}}`, false},
		{"negative tool call index", sprintf(usual, `{"tool_calls":[{"index":-1}]}`, `null`), false},
		{"unknown tool call key", sprintf(usual, `{"tool_calls":[{"index":0,"extra":1}]}`, `null`), false},
		{"unknown function key", sprintf(usual, `{"tool_calls":[{"index":0,"function":{"name":"n","parameters":"x"}}]}`, `null`), false},
		{"tool call as a string", sprintf(usual, `{"tool_calls":["x"]}`, `null`), false},
		{"tool calls as an object", sprintf(usual, `{"tool_calls":{"index":0}}`, `null`), false},
		{"arguments as an object", sprintf(usual, `{"tool_calls":[{"index":0,"function":{"arguments":{}}}]}`, `null`), false},
		{"function as a string", sprintf(usual, `{"tool_calls":[{"index":0,"function":"f"}]}`, `null`), false},
		{"type as an object", sprintf(usual, `{"tool_calls":[{"index":0,"type":{}}]}`, `null`), false},
		{"legacy function_call", sprintf(usual, `{"content":"","function_call":null}`, `null`), false},
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
	}
}

// TestFastChunkTakesRecordedChunks: every recorded chunk of DeepSeek's
// shapes (text, reasoning, tool calls, usage) takes the fast path, so it
// cannot silently stop being used; and what it takes from the recordings
// matches encoding/json. Other servers' extra keys (refusal,
// function_call, audio_tokens) and errors go to the full decoder.
func TestFastChunkTakesRecordedChunks(t *testing.T) {
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
		deepseekShape := errWant == nil && want.Error == nil && !bytes.Contains(chunk, []byte(`"refusal"`)) &&
			!bytes.Contains(chunk, []byte(`"function_call"`)) && !bytes.Contains(chunk, []byte(`"audio_tokens"`))
		if deepseekShape {
			t.Errorf("%s: a chunk of DeepSeek's shape goes to the full decoder", chunk)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d recorded chunks take the fast path", accepted)
	}
	t.Logf("%d recorded chunks take the fast path", accepted)
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
