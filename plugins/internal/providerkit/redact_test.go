package providerkit_test

import (
	"testing"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := providerkit.Redactor{Key: "proxy-token-abcdefgh12345678"}
	tests := map[string]string{
		"Your api key: ****5678 is invalid":            "Your api key: ****[REDACTED] is invalid",
		`{"message":"key ****5678\" bad"}`:             `{"message":"key ****[REDACTED]\" bad"}`,
		"Incorrect API key provided: sk-abc*****wxyz.": "Incorrect API key provided: sk-[REDACTED]",
		"token proxy-token-abcdefgh12345678 refused":   "token [REDACTED] refused",
		"token …abcdefgh12345678 refused":              "token …[REDACTED] refused",
		"prefix proxy-token-abcd was seen":             "prefix [REDACTED] was seen",
		"nothing secret here: 1234":                    "nothing secret here: 1234",
	}
	for in, want := range tests {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
