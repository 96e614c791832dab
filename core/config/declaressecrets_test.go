package config

import "testing"

func TestDeclaresSecrets(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type":"object","properties":{"script":{"type":"string"}}}`:                   false,
		`{"type":"object","properties":{"api_key":{"type":"string","writeOnly":true}}}`: true,
		`{"type":"object"}`: true, // cannot say
		`not json`:          true,
	} {
		if got := DeclaresSecrets([]byte(schema)); got != want {
			t.Errorf("DeclaresSecrets(%s) = %v, want %v", schema, got, want)
		}
	}
}
