package deepseek

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// fastChunk decodes the usual shapes of a chunk
//
//	{"id":…,"object":…,"created":…,"model":…,"system_fingerprint":…,"service_tier":…,
//	 "choices":[{"index":0,"delta":{"role":…,"content":…,"reasoning_content":…,
//	                                "tool_calls":[{"index":0,"id":…,"type":…,
//	                                               "function":{"name":…,"arguments":…}}]},
//	             "logprobs":null,"finish_reason":…}],
//	 "usage":null or {"prompt_tokens":…,"completion_tokens":…,"total_tokens":…,
//	                  "prompt_tokens_details":{"cached_tokens":…},
//	                  "completion_tokens_details":{"reasoning_tokens":…},
//	                  "prompt_cache_hit_tokens":…,"prompt_cache_miss_tokens":…}}
//
// without reflection: text, reasoning and tool-call deltas and the finish
// chunk with its usage, all a turn streams. It reports false, leaving c
// in any state, for anything it does not fully understand: another key
// (error, refusal, a key in another case or with escapes), a repeated
// key, a nested value where it expects a scalar, invalid UTF-8, a lone
// surrogate, a number that is not a plain integer where one is decoded,
// invalid JSON. decodeChunk then decodes the payload with the full
// decoder; FuzzDecodeMatchesEncodingJSON holds an accepted result to
// encoding/json's.
func fastChunk(p []byte, c *wireChunk) bool {
	s := chunkScanner{b: p}
	ok := s.members(chunkKey, func(field int) bool {
		switch field {
		case 0:
			return s.choices(c)
		case 1:
			return s.usage(&c.Usage)
		default:
			return s.scalar()
		}
	})
	s.space()
	return ok && s.i == len(s.b)
}

// chunkScanner reads one JSON value from b at i.
type chunkScanner struct {
	b []byte
	i int
}

func (s *chunkScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte (0 at the end).
func (s *chunkScanner) next() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *chunkScanner) eat(ch byte) bool {
	if s.next() == ch {
		s.i++
		return true
	}
	return false
}

func (s *chunkScanner) literal(w string) bool {
	s.space()
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// chunkKey, choiceKey and deltaKey number the keys fastChunk knows in
// each object, in the order of the cases of the functions that read their
// values (-1 for any other key).
func chunkKey(k []byte) int {
	switch string(k) {
	case "choices":
		return 0
	case "usage":
		return 1
	case "id":
		return 2
	case "object":
		return 3
	case "created":
		return 4
	case "model":
		return 5
	case "system_fingerprint":
		return 6
	case "service_tier":
		return 7
	}
	return -1
}

func choiceKey(k []byte) int {
	switch string(k) {
	case "index":
		return 0
	case "delta":
		return 1
	case "finish_reason":
		return 2
	case "logprobs":
		return 3
	}
	return -1
}

func deltaKey(k []byte) int {
	switch string(k) {
	case "content":
		return 0
	case "reasoning_content":
		return 1
	case "role":
		return 2
	case "tool_calls":
		return 3
	}
	return -1
}

func toolCallKey(k []byte) int {
	switch string(k) {
	case "index":
		return 0
	case "id":
		return 1
	case "function":
		return 2
	case "type":
		return 3
	}
	return -1
}

func functionKey(k []byte) int {
	switch string(k) {
	case "name":
		return 0
	case "arguments":
		return 1
	}
	return -1
}

func usageKey(k []byte) int {
	switch string(k) {
	case "prompt_tokens":
		return 0
	case "completion_tokens":
		return 1
	case "prompt_cache_hit_tokens":
		return 2
	case "prompt_cache_miss_tokens":
		return 3
	case "prompt_tokens_details":
		return 4
	case "completion_tokens_details":
		return 5
	case "total_tokens":
		return 6
	}
	return -1
}

func cachedTokensKey(k []byte) int {
	if string(k) == "cached_tokens" {
		return 0
	}
	return -1
}

func reasoningTokensKey(k []byte) int {
	if string(k) == "reasoning_tokens" {
		return 0
	}
	return -1
}

// members walks an object whose keys are all known to keyOf (plain ASCII,
// without escapes, each at most once; else members gives up): fn gets the
// number keyOf gives each key, with the scanner before its value, and
// consumes the value or returns false.
func (s *chunkScanner) members(keyOf func([]byte) int, fn func(field int) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	var seen uint
	for {
		if !s.eat('"') {
			return false
		}
		start := s.i
		for s.i < len(s.b) && s.b[s.i] != '"' {
			if ch := s.b[s.i]; ch == '\\' || ch < 0x20 || ch >= utf8.RuneSelf {
				return false
			}
			s.i++
		}
		if s.i == len(s.b) {
			return false
		}
		key := s.b[start:s.i]
		s.i++
		field := keyOf(key)
		if field < 0 || seen&(1<<field) != 0 || !s.eat(':') || !fn(field) {
			return false
		}
		seen |= 1 << field
		if s.eat(',') {
			continue
		}
		return s.eat('}')
	}
}

// scalar skips a string, a number, true, false or null.
func (s *chunkScanner) scalar() bool {
	switch ch := s.next(); {
	case ch == '"':
		return s.skipString()
	case ch == '-' || ch >= '0' && ch <= '9':
		return s.number()
	case ch == 't':
		return s.literal("true")
	case ch == 'f':
		return s.literal("false")
	default:
		return s.literal("null")
	}
}

// number skips a JSON number.
func (s *chunkScanner) number() bool {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *chunkScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// nullableString reads null (nil) or a string.
func (s *chunkScanner) nullableString() (*string, bool) {
	if s.next() != '"' {
		return nil, s.literal("null")
	}
	v, ok := s.str()
	return &v, ok
}

// skipString checks a string at its opening quote without keeping it.
func (s *chunkScanner) skipString() bool {
	s.i++
	start := s.i
	for s.i < len(s.b) {
		switch ch := s.b[s.i]; {
		case ch == '"':
			s.i++
			return utf8.Valid(s.b[start : s.i-1])
		case ch == '\\':
			_, ok := s.escaped(start)
			return ok
		case ch < 0x20:
			return false
		}
		s.i++
	}
	return false
}

// str reads a string at its opening quote and unescapes it. Invalid
// UTF-8 and lone surrogates, which encoding/json replaces with U+FFFD,
// make it give up.
func (s *chunkScanner) str() (string, bool) {
	s.i++
	start := s.i
	for s.i < len(s.b) {
		ch := s.b[s.i]
		switch {
		case ch == '"':
			raw := s.b[start:s.i]
			s.i++
			if !utf8.Valid(raw) {
				return "", false
			}
			return string(raw), true
		case ch == '\\':
			return s.escaped(start)
		case ch < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// escaped finishes a string that has escapes, from its first backslash.
func (s *chunkScanner) escaped(start int) (string, bool) {
	out := make([]byte, 0, s.i-start+16)
	out = append(out, s.b[start:s.i]...)
	for s.i < len(s.b) {
		ch := s.b[s.i]
		switch {
		case ch == '"':
			s.i++
			if !utf8.Valid(out) {
				return "", false
			}
			return string(out), true
		case ch < 0x20:
			return "", false
		case ch != '\\':
			out = append(out, ch)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return "", false
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || s.i+1 >= len(s.b) || s.b[s.i] != '\\' || s.b[s.i+1] != 'u' {
					return "", false
				}
				s.i += 2
				lo, ok := s.hex4()
				if !ok {
					return "", false
				}
				if r = utf16.DecodeRune(r, lo); r == utf8.RuneError {
					return "", false
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (s *chunkScanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// choices reads null or an array of choice objects.
func (s *chunkScanner) choices(c *wireChunk) bool {
	if !s.eat('[') {
		return s.literal("null")
	}
	c.Choices = make([]wireChoice, 0, 1)
	if s.eat(']') {
		return true
	}
	for {
		c.Choices = append(c.Choices, wireChoice{})
		if !s.choice(&c.Choices[len(c.Choices)-1]) {
			return false
		}
		if s.eat(',') {
			continue
		}
		return s.eat(']')
	}
}

func (s *chunkScanner) choice(ch *wireChoice) bool {
	return s.members(choiceKey, func(field int) bool {
		switch field {
		case 0:
			return s.index(&ch.Index)
		case 1:
			return s.delta(&ch.Delta)
		case 2:
			var ok bool
			ch.FinishReason, ok = s.nullableString()
			return ok
		default:
			return s.literal("null")
		}
	})
}

// index reads a small non-negative integer.
func (s *chunkScanner) index(v *int) bool {
	s.space()
	start := s.i
	if n := s.digits(); n == 0 || n > 9 || n > 1 && s.b[start] == '0' {
		return false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return false
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	*v = n
	return err == nil
}

func (s *chunkScanner) delta(d *wireDelta) bool {
	return s.members(deltaKey, func(field int) bool {
		var ok bool
		switch field {
		case 0:
			d.Content, ok = s.nullableString()
		case 1:
			d.ReasoningContent, ok = s.nullableString()
		case 3:
			ok = s.toolCalls(&d.ToolCalls)
		default:
			_, ok = s.nullableString()
		}
		return ok
	})
}

// toolCalls reads null or an array of tool-call deltas.
func (s *chunkScanner) toolCalls(calls *[]wireToolCallDelta) bool {
	if !s.eat('[') {
		return s.literal("null")
	}
	*calls = make([]wireToolCallDelta, 0, 1)
	if s.eat(']') {
		return true
	}
	for {
		*calls = append(*calls, wireToolCallDelta{})
		if !s.toolCall(&(*calls)[len(*calls)-1]) {
			return false
		}
		if s.eat(',') {
			continue
		}
		return s.eat(']')
	}
}

func (s *chunkScanner) toolCall(tc *wireToolCallDelta) bool {
	return s.members(toolCallKey, func(field int) bool {
		var ok bool
		switch field {
		case 0:
			if s.next() == 'n' {
				return s.literal("null")
			}
			var n int
			ok = s.index(&n)
			tc.Index = &n
		case 1:
			tc.ID, ok = s.nullableString()
		case 2:
			if s.next() == 'n' {
				return s.literal("null") // leaves the struct as it is
			}
			ok = s.members(functionKey, func(field int) bool {
				var ok bool
				if field == 0 {
					tc.Function.Name, ok = s.nullableString()
				} else {
					tc.Function.Arguments, ok = s.nullableString()
				}
				return ok
			})
		default:
			_, ok = s.nullableString()
		}
		return ok
	})
}

// usage reads null or a usage object.
func (s *chunkScanner) usage(u **wireUsage) bool {
	if s.next() == 'n' {
		return s.literal("null")
	}
	*u = &wireUsage{}
	v := *u
	return s.members(usageKey, func(field int) bool {
		switch field {
		case 0:
			return s.int64(&v.PromptTokens)
		case 1:
			return s.int64(&v.CompletionTokens)
		case 2:
			return s.nullableInt64(&v.PromptCacheHitTokens)
		case 3:
			return s.nullableInt64(&v.PromptCacheMissTokens)
		case 4:
			if s.next() == 'n' {
				return s.literal("null")
			}
			v.PromptTokensDetails = &wirePromptDetails{}
			return s.members(cachedTokensKey, func(int) bool { return s.nullableInt64(&v.PromptTokensDetails.CachedTokens) })
		case 5:
			if s.next() == 'n' {
				return s.literal("null")
			}
			v.CompletionTokensDetails = &wireCompletionDetails{}
			return s.members(reasoningTokensKey, func(int) bool {
				return s.nullableInt64(&v.CompletionTokensDetails.ReasoningTokens)
			})
		default:
			return s.scalar()
		}
	})
}

// int64 reads null (leaving v as it is) or an integer without fraction
// or exponent that surely fits an int64.
func (s *chunkScanner) int64(v *int64) bool {
	if s.next() == 'n' {
		return s.literal("null")
	}
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	if n := s.digits(); n == 0 || n > 18 || n > 1 && s.b[digits] == '0' {
		return false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	*v = n
	return err == nil
}

// nullableInt64 reads null (nil) or an integer as int64 does.
func (s *chunkScanner) nullableInt64(v **int64) bool {
	if s.next() == 'n' {
		*v = nil
		return s.literal("null")
	}
	n := new(int64)
	*v = n
	return s.int64(n)
}
