package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

// harnessBin is the harness binary built once for these end-to-end tests.
var harnessBin string

// stateRoot holds each test's session store (see stateDir); the tests never
// touch the real home's state folder.
var stateRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "harness-cli-test-")
	if err != nil {
		panic(err)
	}
	stateRoot = filepath.Join(dir, "state")
	// A harness started without testEnv still keeps away from the real home.
	os.Unsetenv("HARNESS_STORE")
	os.Setenv("HARNESS_STATE_DIR", filepath.Join(stateRoot, "default"))
	os.Setenv("XDG_STATE_HOME", filepath.Join(stateRoot, "xdg"))
	harnessBin = testkit.MustBuild(".")
	code := testkit.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// stateDir is the session store folder of a test and its subtests.
func stateDir(t *testing.T) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return filepath.Join(stateRoot, name)
}

// storeFile is the session store of a test.
func storeFile(t *testing.T) string {
	return filepath.Join(stateDir(t), "harness.db")
}

// testEnv is the environment of a harness the test starts: the test's own
// state folder, then env (which may override it).
func testEnv(t *testing.T, env []string) []string {
	return append(append(os.Environ(), "HARNESS_STATE_DIR="+stateDir(t)), env...)
}

func harness(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(harnessBin, args...)
	cmd.Dir = dir
	cmd.Env = testEnv(t, env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

// writeFile writes body to path, creating its folder.
var writeFile = testkit.WriteFile

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := harness(t, "", nil, "version")
	if r.code != 0 || !strings.Contains(r.stdout, "plugin protocol v1") {
		t.Fatalf("version: %+v", r)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"validate"},
		{"validate", "a", "b"},
		{"fmt"},
		{"plugins", "lock"},
		{"validate", "--nope", "x.hcl"},
		{"nosuchcommand"},
		{"plugin", "serve", "nosuchplugin"},
	} {
		r := harness(t, "", nil, args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
		}
	}
}

func TestValidateExamples(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, ex := range []string{"examples/quickstart/agent.hcl", "examples/deepseek/agent.hcl", "examples/ollama/agent.hcl"} {
		r := harness(t, root, []string{"DEEPSEEK_API_KEY=sk-test"}, "validate", ex)
		if r.code != 0 {
			t.Errorf("%s: exit %d\n%s%s", ex, r.code, r.stdout, r.stderr)
		}
		if r := harness(t, root, nil, "fmt", "--check", filepath.Dir(ex)); r.code != 0 {
			t.Errorf("%s is not formatted: %s", ex, r.stdout)
		}
	}
	if r := harness(t, root, nil, "validate", "examples/quickstart/agent.hcl"); !strings.Contains(r.stdout, "(1 agent, 0 plugins declared)") {
		t.Errorf("validate counts with plurals: %q, want (1 agent, 0 plugins declared)", r.stdout)
	}
	// The README's command, over every example (the plugin scaffolds included).
	if r := harness(t, root, nil, "fmt", "--check", "examples/"); r.code != 0 {
		t.Errorf("fmt --check examples/: exit %d, unformatted: %s%s", r.code, r.stdout, r.stderr)
	}
}

const invalidConfig = `model "m" {
  provider = "nope"
  id       = "x"
}

agent "a" {
  model = "m"
  tools = ["read_file", "no_such_tool"]
  context {
    threshold = 1.5
  }
}
`

func TestValidateReportsEveryErrorWithPosition(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bad.hcl"), invalidConfig)

	r := harness(t, dir, nil, "validate", "bad.hcl")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"bad.hcl:2:14", `provider = "nope"`, "bad.hcl:10:17", "threshold = 1.5"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, r.stderr)
		}
	}

	r = harness(t, dir, nil, "validate", "--json", "bad.hcl")
	if r.code != 2 {
		t.Fatalf("--json exit %d", r.code)
	}
	var diags []struct {
		Severity, Summary string
		Range             struct {
			Filename string
			Start    struct{ Line, Column int }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &diags); err != nil {
		t.Fatalf("--json output is not a JSON array: %v\n%s", err, r.stdout)
	}
	lines := map[int]bool{}
	for _, d := range diags {
		lines[d.Range.Start.Line] = true
		if d.Range.Start.Column == 0 || !strings.HasSuffix(d.Range.Filename, "bad.hcl") {
			t.Errorf("diagnostic without file:line:col: %+v", d)
		}
	}
	if !lines[2] || !lines[10] {
		t.Errorf("want errors on lines 2 and 10, got %+v", diags)
	}
}

// TestValidateBuiltinProviderSettings: a built-in provider's block is
// checked against the schema the plugin reports, with no process started:
// a wrong type and an unknown attribute are diagnostics at their
// file:line:col with the source line, as for a third-party plugin.
func TestValidateBuiltinProviderSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), `provider "deepseek" {
  api_key      = env("DEEPSEEK_API_KEY")
  require_done = "sometimes"
  colour       = "blue"
}

model "m" {
  provider = "deepseek"
  id       = "deepseek-chat"
}

agent "a" {
  model = "m"
}
`)
	r := harness(t, dir, []string{"DEEPSEEK_API_KEY=sk-test"}, "validate", "agent.hcl")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"Incorrect attribute value type", "agent.hcl:3:18", `require_done = "sometimes"`,
		"Unsupported argument", "agent.hcl:4:3", `colour       = "blue"`, `provider "deepseek" (plugin "provider-deepseek")`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, r.stderr)
		}
	}
	r = harness(t, dir, []string{"DEEPSEEK_API_KEY=sk-test"}, "validate", "--json", "agent.hcl")
	var diags []struct {
		Summary string
		Range   struct{ Start struct{ Line, Column int } }
	}
	if err := json.Unmarshal([]byte(r.stdout), &diags); err != nil {
		t.Fatalf("--json output is not a JSON array: %v\n%s", err, r.stdout)
	}
	got := map[string]bool{}
	for _, d := range diags {
		got[fmt.Sprintf("%s %d:%d", d.Summary, d.Range.Start.Line, d.Range.Start.Column)] = true
	}
	if !got["Incorrect attribute value type 3:18"] || !got["Unsupported argument 4:3"] || len(diags) != 2 {
		t.Errorf("--json diagnostics %+v, want the two at 3:18 and 4:3", diags)
	}
}

func TestUnknownToolNeedsThePlugins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.hcl"), `provider "p" {
  api_key = "k"
}

model "m" {
  provider       = "p"
  id             = "x"
  context_window = 1000
}

agent "a" {
  model = "m"
  tools = ["read_file", "search_workspace", "no_such_tool"]
}
`)
	r := harness(t, dir, nil, "validate", "a.hcl")
	if r.code != 2 || strings.Count(r.stderr, "Unknown tool") != 1 || !strings.Contains(r.stderr, `tool named "no_such_tool"`) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

func TestFmt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.hcl")
	messy := "# keep me\nagent \"a\" {\nmodel=\"m\" # and me\n  tools    = [\"read_file\"]\n}\n"
	tidy := "# keep me\nagent \"a\" {\n  model = \"m\" # and me\n  tools = [\"read_file\"]\n}\n"
	writeFile(t, path, messy)

	r := harness(t, dir, nil, "fmt", "--check", "a.hcl")
	if r.code != 1 || !strings.Contains(r.stdout, "a.hcl") {
		t.Fatalf("fmt --check on a messy file: %+v", r)
	}
	if got, _ := os.ReadFile(path); string(got) != messy {
		t.Fatal("fmt --check wrote the file")
	}
	if r := harness(t, dir, nil, "fmt", "."); r.code != 0 {
		t.Fatalf("fmt: %+v", r)
	}
	if got, _ := os.ReadFile(path); string(got) != tidy {
		t.Fatalf("fmt result:\n%s\nwant:\n%s", got, tidy)
	}
	if r := harness(t, dir, nil, "fmt", "--check", "a.hcl"); r.code != 0 || r.stdout != "" {
		t.Fatalf("fmt --check on a tidy file: %+v", r)
	}
	// A directory is checked recursively, and one with no .hcl file fails.
	writeFile(t, filepath.Join(dir, "nested", "deeper", "b.hcl"), messy)
	if r := harness(t, dir, nil, "fmt", "--check", "."); r.code != 1 || !strings.Contains(r.stdout, filepath.Join("nested", "deeper", "b.hcl")) {
		t.Fatalf("fmt --check . should find the nested file: %+v", r)
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := harness(t, dir, nil, "fmt", "--check", "empty"); r.code != 2 || !strings.Contains(r.stderr, "holds no .hcl file") {
		t.Fatalf("fmt --check on a folder without .hcl files: %+v", r)
	}
	writeFile(t, filepath.Join(dir, "broken.hcl"), "agent \"a\" {\n")
	if r := harness(t, dir, nil, "fmt", "--check", "broken.hcl"); r.code != 2 || !strings.Contains(r.stderr, "broken.hcl") {
		t.Fatalf("fmt on a syntax error: %+v", r)
	}
}

func TestThirdPartyPluginIsLockedVerifiedAndDescribed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "examples/thirdparty/agent.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "agent.hcl"), string(src))
	bin := filepath.Join(dir, "bin/harness-tool-jsonquery")
	testkit.CopyExecutable(t, buildPlugin(t, "./examples/plugins/jsonquery"), bin)
	env := []string{"DEEPSEEK_API_KEY=sk-test"}

	r := harness(t, dir, env, "validate", "agent.hcl")
	if r.code != 2 || !strings.Contains(r.stderr, "harness plugins lock") {
		t.Fatalf("unlocked plugin: exit %d\n%s", r.code, r.stderr)
	}
	r = harness(t, dir, env, "plugins", "lock", "agent.hcl")
	if r.code != 0 || !strings.Contains(r.stdout, "locked jsonquery") {
		t.Fatalf("lock: %+v", r)
	}
	lock, err := os.ReadFile(filepath.Join(dir, ".harness.lock.hcl"))
	if err != nil || !strings.Contains(string(lock), `plugin "jsonquery"`) {
		t.Fatalf("lock file: %s %v", lock, err)
	}
	if r := harness(t, dir, env, "validate", "agent.hcl"); r.code != 0 {
		t.Fatalf("validate after lock: exit %d\n%s", r.code, r.stderr)
	}

	r = harness(t, dir, env, "plugins", "describe", "jsonquery", "agent.hcl")
	if r.code != 0 || !strings.Contains(r.stdout, `"json_query"`) || !strings.Contains(r.stdout, "max_output_bytes") {
		t.Fatalf("describe: %+v", r)
	}
	r = harness(t, dir, env, "plugins", "list", "agent.hcl")
	for _, want := range []string{"jsonquery", "json_query", "read_file", "provider-deepseek", "provider-anthropic"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("plugins list lacks %q:\n%s", want, r.stdout)
		}
	}

	// The plugin's config block is checked against the schema it reports.
	bad := strings.Replace(string(src), "max_output_bytes = 8192", `max_output_bytes = "lots"`, 1)
	writeFile(t, filepath.Join(dir, "agent.hcl"), bad)
	if r := harness(t, dir, env, "validate", "agent.hcl"); r.code != 2 || !strings.Contains(r.stderr, "max_output_bytes") {
		t.Fatalf("bad plugin config: exit %d\n%s", r.code, r.stderr)
	}
	writeFile(t, filepath.Join(dir, "agent.hcl"), string(src))

	// A changed binary is refused, naming the file and both hashes.
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("tampered"))
	f.Close()
	r = harness(t, dir, env, "validate", "agent.hcl")
	if r.code != 2 || !strings.Contains(r.stderr, "harness-tool-jsonquery") || strings.Count(r.stderr, "sha256") < 1 {
		t.Fatalf("tampered plugin: exit %d\n%s", r.code, r.stderr)
	}
}
