package terminal

import (
	"strings"

	"github.com/harness-agent/harness/sdk"
)

// secretWords mark a variable as a secret when its name contains one of
// them (case-insensitive): FOO_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
// DB_PASSWORD, GOOGLE_APPLICATION_CREDENTIALS…
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"}

// internalPrefixes mark the harness's own variables and go-plugin's
// (PLUGIN_PROTOCOL_VERSIONS, PLUGIN_MIN_PORT…): a command has no business
// with them, and a plugin binary started by a command must not mistake
// itself for one the host started.
var internalPrefixes = []string{"HARNESS_", "PLUGIN_"}

// commandEnv is the environment a command runs with: the plugin's own
// (which the host already keeps minimal) without anything that looks like
// a secret or like harness internals. Names are compared upper-cased.
func commandEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || scrubbed(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func scrubbed(name string) bool {
	upper := strings.ToUpper(name)
	if upper == strings.ToUpper(sdk.Handshake.MagicCookieKey) {
		return true
	}
	for _, p := range internalPrefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// withEnv is environ with name set to value.
func withEnv(environ []string, name, value string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if n, _, _ := strings.Cut(kv, "="); n != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
