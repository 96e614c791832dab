package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scaffold writes a plugin with `harness plugins new` into a temporary
// directory outside the repository, with go.mod's replace pointing at this
// checkout, then runs its test and builds it where its agent.hcl expects
// the binary, as its header comment says.
func scaffold(t *testing.T, name, kind string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if r := harness(t, t.TempDir(), nil, "plugins", "new", name, "--kind", kind, "--replace", repoRoot(t), dir); r.code != 0 {
		t.Fatalf("plugins new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"mod", "tidy"},
		{"vet", "./..."},
		{"test", "-count=1", "./..."},
		{"build", "-o", filepath.Join("bin", "harness-"+kind+"-"+name), "."},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the scaffolded module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if r := harness(t, dir, nil, "plugins", "lock", "agent.hcl"); r.code != 0 {
		t.Fatalf("plugins lock: exit %d\n%s", r.code, r.stderr)
	}
	return dir
}

// TestScaffoldToolRunsOffline: the tool scaffold builds and passes its
// test outside the repository, and its agent.hcl calls the tool through
// the scripted provider.
func TestScaffoldToolRunsOffline(t *testing.T) {
	t.Parallel()
	dir := scaffold(t, "wordcount", "tool")
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Count the words")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	results := eventData(parseEvents(t, r.stdout), "tool.result")
	if len(results) != 1 || results[0]["ok"] != true || !strings.Contains(fmt.Sprint(results[0]), "4 words") {
		t.Fatalf("tool results %v, want one saying 4 words", results)
	}
}

// TestScaffoldProviderEndToEnd: a third-party provider plugin built from
// the scaffold, locked and used by an agent; its settings are validated
// against the schema it reports, at the right lines, without a request.
func TestScaffoldProviderEndToEnd(t *testing.T) {
	t.Parallel()
	dir := scaffold(t, "greeter", "provider")
	if r := harness(t, dir, nil, "validate", "agent.hcl"); r.code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Say hello")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	resp := eventData(parseEvents(t, r.stdout), "agent.response")
	if len(resp) != 1 || resp[0]["text"] != "Hello from greeter." {
		t.Fatalf("agent.response %v, want the canned reply", resp)
	}

	cfg, err := os.ReadFile(filepath.Join(dir, "agent.hcl"))
	if err != nil {
		t.Fatal(err)
	}

	// A setting the schema marks secret never reaches the events, even
	// when the provider echoes it.
	const secret = "sk-greeter-never-shown-1234"
	leaky := strings.Replace(string(cfg), `  reply  = "Hello from greeter." # a setting of the plugin's own schema`,
		fmt.Sprintf("  reply   = \"Your key is %s.\"\n  api_key = %q", secret, secret), 1)
	writeFile(t, filepath.Join(dir, "leaky.hcl"), leaky)
	r = harness(t, dir, nil, "run", "--json", "--no-input", "leaky.hcl", "Say hello")
	if r.code != 0 {
		t.Fatalf("run leaky.hcl: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, secret) || !strings.Contains(r.stdout, "Your key is [redacted].") {
		t.Fatalf("the events do not redact the secret setting:\n%s", r.stdout)
	}
	bad := strings.Replace(string(cfg), `  reply  = "Hello from greeter." # a setting of the plugin's own schema`,
		"  reply   = [\"not\", \"a string\"] # ERROR: Incorrect attribute value type\n"+
			"  colour  = \"blue\"             # ERROR: Unsupported argument", 1)
	if bad == string(cfg) {
		t.Fatal("the scaffold's agent.hcl no longer has the reply line this test edits")
	}
	writeFile(t, filepath.Join(dir, "bad.hcl"), bad)
	r = harness(t, dir, nil, "validate", "bad.hcl")
	if r.code != 2 {
		t.Fatalf("validate bad.hcl: exit %d, want 2\n%s", r.code, r.stderr)
	}
	for i, line := range strings.Split(bad, "\n") {
		_, summary, ok := strings.Cut(line, "# ERROR: ")
		if !ok {
			continue
		}
		want := fmt.Sprintf("bad.hcl:%d:", i+1)
		if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, summary) {
			t.Errorf("validate does not report %q at %s:\n%s", summary, want, r.stderr)
		}
	}
}

// TestPluginsNewFindsTheCheckout: run outside any checkout, by a binary
// that is not in one either, `plugins new` falls back to ../harness and
// says at once that nothing is there (before `go mod tidy` fails); with
// --replace naming a checkout it says nothing.
func TestPluginsNewFindsTheCheckout(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	r := harness(t, outside, nil, "plugins", "new", "wc", filepath.Join(outside, "wc"))
	if r.code != 0 {
		t.Fatalf("plugins new: exit %d\n%s", r.code, r.stderr)
	}
	want := "go.mod's replace points at " + filepath.Join(outside, "harness") + ", which holds no harness checkout"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q, want the note %q", r.stderr, want)
	}
	r = harness(t, outside, nil, "plugins", "new", "wc2", "--replace", repoRoot(t), filepath.Join(outside, "wc2"))
	if r.code != 0 || strings.Contains(r.stderr, "Note:") {
		t.Errorf("with --replace at the checkout: exit %d, stderr %q, want no note", r.code, r.stderr)
	}
}
