package redact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/sdk"
)

func TestSecrets(t *testing.T) {
	t.Parallel()
	var s redact.Secrets
	if got := s.String("sk-not-yet-known"); got != "sk-not-yet-known" {
		t.Errorf("an empty set changed %q", got)
	}
	s.Add("short", "sk-live-0123456789", "sk-live-0123456789-long", `pa"ss\word-1`)
	for _, tt := range []struct{ in, want string }{
		{"key sk-live-0123456789 end", "key [redacted] end"},
		{"sk-live-0123456789-long", "[redacted]"},
		{"short stays", "short stays"},
		{`json {"k":"pa\"ss\\word-1"}`, `json {"k":"[redacted]"}`},
		{"quoted key=" + fmt.Sprintf("%q", `pa"ss\word-1`), `quoted key="[redacted]"`},
	} {
		if got := s.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := s.Values(); len(got) != 3 {
		t.Errorf("Values = %q, want the three long ones", got)
	}
	var none *redact.Secrets
	none.Add("sk-live-0123456789")
	if none.String("sk-live-0123456789") != "sk-live-0123456789" || none.Values() != nil {
		t.Error("a nil set is not inert")
	}
}

func TestSecretsError(t *testing.T) {
	t.Parallel()
	var s redact.Secrets
	s.Add("sk-live-0123456789")
	plain := errors.New("nothing secret")
	if s.Error(plain) != plain || s.Error(nil) != nil {
		t.Error("an error without a secret is not returned as it is")
	}
	se := &sdk.Error{Kind: sdk.KindAuth, Message: "bad key sk-live-0123456789", RetryAfter: time.Second}
	for _, err := range []error{se, fmt.Errorf("provider %q: %w", "p", se), fmt.Errorf("wrapped: %v", "sk-live-0123456789")} {
		got := s.Error(err)
		if strings.Contains(got.Error(), "sk-live") {
			t.Errorf("%v: still shows the key", got)
		}
		if e := sdk.AsError(got); strings.Contains(e.Message, "sk-live") {
			t.Errorf("%v: the chain still reaches the key: %q", got, e.Message)
		}
		if errors.Is(err, se) && (sdk.KindOf(got) != sdk.KindAuth || sdk.AsError(got).RetryAfter != time.Second) {
			t.Errorf("%v: kind %s, want auth with its Retry-After", got, sdk.KindOf(got))
		}
	}
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var s redact.Secrets
	var buf bytes.Buffer
	w := s.Writer(&buf)
	s.Add("sk-live-0123456789") // known after the writer was made
	line := `2026-12-02T00:00:00Z [DEBUG] plugin: key="sk-live-0123456789"` + "\n"
	if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if strings.Contains(buf.String(), "sk-live") || !strings.Contains(buf.String(), redact.Marker) {
		t.Errorf("wrote %q", buf.String())
	}
	enc, _ := json.Marshal(map[string]string{"k": "sk-live-0123456789"})
	if got := s.String(string(enc)); got != `{"k":"[redacted]"}` {
		t.Errorf("JSON: %s", got)
	}
}

// FuzzSecrets: whatever the secrets and the text, a secret of MinLen or
// more never survives String.
func FuzzSecrets(f *testing.F) {
	f.Add("sk-live-0123456789", "a sk-live-0123456789 b")
	f.Add(`x"y\z-12345`, `{"k":"x\"y\\z-12345"}`)
	f.Fuzz(func(t *testing.T, secret, text string) {
		var s redact.Secrets
		s.Add(secret)
		got := s.String(text + secret + text)
		if len(secret) >= redact.MinLen && strings.Contains(got, secret) && !strings.Contains(redact.Marker, secret) {
			t.Errorf("String left %q in %q", secret, got)
		}
	})
}

// TestJSONReplacer: in encoded JSON only the escaped form is replaced, so
// a secret that looks like JSON structure cannot break the document.
func TestJSONReplacer(t *testing.T) {
	t.Parallel()
	secret := `x","y":"zzzz`
	doc, _ := json.Marshal(map[string]string{"a": secret, "b": "x", "y": "zzzz"})
	got := redact.NewJSONReplacer([]string{secret}, redact.Marker).Replace(string(doc))
	var back map[string]string
	if err := json.Unmarshal([]byte(got), &back); err != nil || back["a"] != redact.Marker || back["b"] != "x" {
		t.Errorf("redacted %s: %v, %v", got, back, err)
	}
}

// FuzzReplacerMatchesStringsReplacer: Replacer's shortcut for text that
// holds no secret changes nothing: its output is strings.Replacer's over
// the same forms, for two secrets (strings.Replacer's slow case) that may
// overlap or contain each other, inside or around any text.
func FuzzReplacerMatchesStringsReplacer(f *testing.F) {
	f.Add("sk-live-0123456789", "ghp_abcdefghijk", "a sk-live-0123456789 b", 1)
	f.Add("aaaaaaaaaa", "aaaaaaaaaaaa", "xaaaaaaaaaaaaaay", 0)
	f.Add(`x"y\z-12345`, "12345678", `{"k":"x\"y\\z-12345"}`, 2)
	f.Fuzz(func(t *testing.T, a, b, text string, where int) {
		switch where % 3 {
		case 1:
			text += a
		case 2:
			text = b + text
		}
		values := []string{a, b}
		for _, tc := range []struct {
			name  string
			got   *redact.Replacer
			forms func(string) []string
		}{
			{"NewReplacer", redact.NewReplacer(values, "[r]"), func(v string) []string {
				j, _ := json.Marshal(v)
				return []string{v, string(j[1 : len(j)-1]), fmt.Sprintf("%q", v)[1 : len(fmt.Sprintf("%q", v))-1]}
			}},
			{"NewJSONReplacer", redact.NewJSONReplacer(values, "[r]"), func(v string) []string {
				j, _ := json.Marshal(v)
				return []string{string(j[1 : len(j)-1])}
			}},
		} {
			want := oracle(values, tc.forms).Replace(text)
			if tc.got == nil {
				if want != text {
					t.Fatalf("%s: nil replacer, but the forms of %q change %q", tc.name, values, text)
				}
				continue
			}
			if got := tc.got.Replace(text); got != want {
				t.Fatalf("%s(%q).Replace(%q) = %q, strings.Replacer gives %q", tc.name, values, text, got, want)
			}
		}
	})
}

// oracle is the strings.Replacer redact builds over the forms of values
// of MinLen or more, longest first.
func oracle(values []string, forms func(string) []string) *strings.Replacer {
	var all []string
	for _, v := range values {
		if len(v) < redact.MinLen {
			continue
		}
		for _, f := range forms(v) {
			if !slices.Contains(all, f) {
				all = append(all, f)
			}
		}
	}
	slices.SortStableFunc(all, func(x, y string) int { return len(y) - len(x) })
	var pairs []string
	for _, f := range all {
		pairs = append(pairs, f, "[r]")
	}
	return strings.NewReplacer(pairs...)
}

// BenchmarkReplaceClean is a 32 KiB file read holding no secret through
// the event redactor of a run with two secrets.
func BenchmarkReplaceClean(b *testing.B) {
	text := strings.Repeat(strings.Repeat("x", 79)+"\n", 410)[:32<<10]
	r := redact.NewJSONReplacer([]string{"sk-0123456789abcdef0123", "ghp_abcdefghijklmnopqrstuvwxyz"}, redact.Marker)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if r.Replace(text) != text {
			b.Fatal("changed")
		}
	}
}
