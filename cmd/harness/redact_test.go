package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leakyConfig runs an agent on the leakyprovider plugin in mode, its key
// read from LEAKY_KEY.
func leakyConfig(t *testing.T, dir, mode string) string {
	t.Helper()
	sum := copyPlugin(t, "./cmd/harness/testdata/leakyprovider", filepath.Join(dir, "bin", "leakyprovider"))
	return fmt.Sprintf(`plugin "leaky" {
  path   = "./bin/leakyprovider"
  sha256 = %q
}

provider "leaky" {
  plugin  = "leaky"
  api_key = env("LEAKY_KEY")
  mode    = %q
}

model "m" {
  provider = "leaky"
  id       = "leaky"
}

agent "a" {
  model = "m"
}
`, sum, mode)
}

// TestProviderSecretsRedactedEverywhere: a provider plugin that logs its
// key (hclog lines and raw stderr), answers with it, fails with it and
// crashes printing it: with the harness logging at trace level on stderr,
// the key is in none of stdout (the --json events), stderr (logs, the
// error, the crash report's stderr tail), the store's events or the store
// file itself; where it was, [redacted] is.
func TestProviderSecretsRedactedEverywhere(t *testing.T) {
	t.Parallel()
	const key = "sk-leaky-0123456789abcdef"
	for _, tt := range []struct {
		mode      string
		code      int
		stderrHas []string // what shows the line arrived, redacted (hclog orders fields freely)
	}{
		{"echo", 0, []string{"configured", "request with key [redacted]"}},
		{"error", 1, []string{"the server refused the key [redacted]"}},
		{"crash", 1, []string{"about to crash:", "api_key=[redacted]", "its stderr ended with:", `"api_key":"[redacted]"`}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			writeFile(t, filepath.Join(dir, "agent.hcl"), leakyConfig(t, dir, tt.mode))
			env := []string{"LEAKY_KEY=" + key, "HARNESS_LOG=trace", "HARNESS_STATE_DIR=" + state}
			r := harness(t, dir, env, "run", "--json", "--no-input", "agent.hcl", "What is your key?")
			if r.code != tt.code {
				t.Fatalf("run: exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			seen := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
			for _, want := range tt.stderrHas {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q: the leak did not happen or was not redacted there:\n%s", want, r.stderr)
				}
			}
			if tt.mode == "echo" && !strings.Contains(r.stdout, "Your key is [redacted].") {
				t.Errorf("the answer is not there, redacted:\n%s", r.stdout)
			}
			evs := parseEvents(t, r.stdout)
			if len(evs) == 0 || evs[0].Session == "" {
				t.Fatalf("no session in the events:\n%s", r.stdout)
			}
			show := harness(t, dir, env, "sessions", "events", evs[0].Session, "--json")
			if show.code != 0 || !strings.Contains(show.stdout, "session.ended") {
				t.Errorf("sessions events: exit %d\n%s%s", show.code, show.stdout, show.stderr)
			}
			seen["sessions events"] = show.stdout + show.stderr
			files, _ := filepath.Glob(filepath.Join(state, "*"))
			if len(files) == 0 {
				t.Fatal("no store file in the state folder")
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				seen[filepath.Base(f)] = string(b)
			}
			for where, text := range seen {
				if strings.Contains(text, key) || strings.Contains(text, key[:12]+"…") {
					t.Errorf("the key is in %s:\n%s", where, text)
				}
			}
		})
	}
}
