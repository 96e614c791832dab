package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// buildPlugin is the Go package pkg (relative to the repository root),
// built once per test process.
func buildPlugin(t *testing.T, pkg string) string {
	t.Helper()
	return testkit.Build(t, filepath.Join(repoRoot(t), pkg))
}

// testplugin copies the plugin host's test plugin (it can sleep, crash,
// ...) to dst and returns its sha256.
func testplugin(t *testing.T, dst string) string {
	t.Helper()
	bin := buildPlugin(t, "./core/pluginhost/testdata/testplugin")
	testkit.CopyExecutable(t, bin, dst)
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// testpluginConfig is an agent whose tools include the test plugin's, with
// extra attributes in its plugin block.
func testpluginConfig(t *testing.T, dir, url, block string, tools ...string) string {
	t.Helper()
	sum := testplugin(t, filepath.Join(dir, "bin", "harness-tool-testplugin"))
	cfg := deepseekConfig(url, "", fmt.Sprintf("\nplugin \"testplugin\" {\n  path   = \"./bin/harness-tool-testplugin\"\n  sha256 = %q\n%s}\n", sum, block))
	return withTools(cfg, tools...)
}

// TestFaultPluginTimeout: a plugin block's timeout bounds each call to its
// tools: a call that hangs fails as timeout after it, and the run goes on.
func TestFaultPluginTimeout(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: "call_hang", Name: "sleep", Arguments: `{}`}}}),
		answer)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), testpluginConfig(t, dir, fake.URL, "  approval = \"allow\"\n  timeout  = \"1s\"\n", "read_file", "sleep"))
	r := harness(t, dir, keyEnv, "run", "--json", "--no-input", "--yes", "agent.hcl", "Sleep")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	if got := strings.Join(resultErrorKinds(evs), ","); got != "timeout" {
		t.Errorf("tool.result error kinds %q, want timeout", got)
	}
	if results := eventData(evs, "tool.result"); len(results) == 1 && !strings.Contains(fmt.Sprint(results[0]), "1s") {
		t.Errorf("the timeout does not say which deadline: %v", results[0])
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}

// TestFaultPluginCrashReport: a plugin that logs and then crashes at once
// is reported with its last stderr lines and its exit status, every time.
func TestFaultPluginCrashReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const runs = 5
	var queue []fakedeepseek.Response
	for range runs {
		queue = append(queue, fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{{ID: "call_crash", Name: "crash", Arguments: `{}`}}}), answer)
	}
	fake := fakedeepseek.New(t, queue...)
	writeFile(t, filepath.Join(dir, "agent.hcl"), testpluginConfig(t, dir, fake.URL, "  approval = \"allow\"\n", "read_file", "crash"))
	for i := range runs {
		r := harness(t, dir, keyEnv, "run", "--json", "--no-input", "--yes", "agent.hcl", "Crash")
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i+1, r.code, r.stderr)
		}
		results := eventData(parseEvents(t, r.stdout), "tool.result")
		if len(results) != 1 {
			t.Fatalf("run %d: %d tool results", i+1, len(results))
		}
		msg := fmt.Sprint(results[0]["error"])
		for _, want := range []string{"process_exit", "exited with status 2", "about to crash", "boom from a plugin goroutine"} {
			if !strings.Contains(msg, want) {
				t.Errorf("run %d: the crash report lacks %q: %s", i+1, want, msg)
			}
		}
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}
