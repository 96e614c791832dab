package runner

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/redact"
	"github.com/harness-agent/harness/core/session"
)

// redactEvent stores an event with a secret in its content with the
// secret replaced, and one without as encoding/json encodes it, saying so.
func TestRedactEvent(t *testing.T) {
	t.Parallel()
	secret := "sk-0123456789abcdef0123"
	rep := redact.NewJSONReplacer([]string{secret, "ghp_abcdefghijklmnopqrstuvwxyz"}, redact.Marker)
	clean := event.ToolResult{CallID: "c1", Tool: "read_file", OK: true, Content: "line <1>\nline 2\n"}
	got, exact := redactEvent(clean, rep)
	want, _ := json.Marshal(clean)
	if enc, ok := got.(session.Encoded); !ok || !bytes.Equal(enc, want) || !exact {
		t.Errorf("clean event: %v (exact %v), want %s", got, exact, want)
	}
	leaky := clean
	leaky.Content = "key = " + secret + "\n"
	got, exact = redactEvent(leaky, rep)
	enc, ok := got.(session.Encoded)
	if !ok || exact || bytes.Contains(enc, []byte(secret)) || !bytes.Contains(enc, []byte(redact.Marker)) {
		t.Errorf("event with a secret: %s (exact %v)", enc, exact)
	}
	var back event.ToolResult
	if err := json.Unmarshal(enc, &back); err != nil || back.Content != "key = "+redact.Marker+"\n" {
		t.Errorf("redacted event decodes to %+v, %v", back, err)
	}
}

// BenchmarkRedactFileRead is the redaction of a 32 KiB file read's
// tool.result holding no secret (the executor's cap on what the model
// gets), in a run with one secret and with two.
func BenchmarkRedactFileRead(b *testing.B) {
	r := event.ToolResult{CallID: "c1", Tool: "read_file", OK: true, Content: strings.Repeat(strings.Repeat("x", 79)+"\n", 410)[:32<<10]}
	for _, secrets := range [][]string{{"sk-0123456789abcdef0123"}, {"sk-0123456789abcdef0123", "ghp_abcdefghijklmnopqrstuvwxyz"}} {
		rep := redact.NewJSONReplacer(secrets, redact.Marker)
		b.Run(map[int]string{1: "one-secret", 2: "two-secrets"}[len(secrets)], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, exact := redactEvent(r, rep); !exact {
					b.Fatal("redacted a clean event")
				}
			}
		})
	}
}
