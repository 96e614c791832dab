package providerkit

import (
	"regexp"
	"strings"
)

// redacted replaces secrets in text.
const redacted = "[REDACTED]"

var (
	// skToken matches an API key of the OpenAI/DeepSeek/Anthropic ("sk-ant-…") form, also when a
	// server echoes it masked ("sk-abc…wxyz", "sk-40b7******2f").
	skToken = regexp.MustCompile(`sk-[A-Za-z0-9_\-*.…]+`)
	// maskedTail matches a masked echo of a key's tail: DeepSeek's 401 says
	// "Your api key: ****f00d is invalid".
	maskedTail = regexp.MustCompile(`(\*{3,}|…|\.{3})[^\s"'\\,;)\[\]{}]+`)
)

// Redactor removes one configured API key, and anything shaped like a key
// or a masked echo of one, from text that may reach logs, events or errors.
type Redactor struct{ Key string }

// Redact returns s with the key, long pieces of it, "sk-…" shaped tokens
// (OpenAI, DeepSeek and Anthropic keys all start so) and masked echoes
// replaced by [REDACTED].
func (r Redactor) Redact(s string) string {
	if r.Key != "" {
		s = strings.ReplaceAll(s, r.Key, redacted)
		// A server may echo a long head or tail of the key on its own.
		for _, part := range keyParts(r.Key) {
			s = strings.ReplaceAll(s, part, redacted)
		}
	}
	s = skToken.ReplaceAllString(s, "sk-"+redacted)
	s = maskedTail.ReplaceAllString(s, "${1}"+redacted)
	return s
}

// keyParts returns the key's prefixes and suffixes of 8 characters or more
// (shorter ones are too likely to be ordinary text), longest first.
func keyParts(key string) []string {
	const minPart = 8
	var parts []string
	for n := len(key) - 1; n >= minPart; n-- {
		parts = append(parts, key[len(key)-n:], key[:n])
	}
	return parts
}
