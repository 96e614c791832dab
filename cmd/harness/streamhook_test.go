package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// copyPlugin builds the Go package pkg once (see buildPlugin), copies it
// to dst and returns its sha256.
func copyPlugin(t *testing.T, pkg, dst string) string {
	t.Helper()
	testkit.CopyExecutable(t, buildPlugin(t, pkg), dst)
	return fileSHA256(t, dst)
}

// streamHookConfig is the DeepSeek agent with the streamhook plugin
// subscribed to llm/stream.
func streamHookConfig(t *testing.T, dir, url string) string {
	sum := copyPlugin(t, "./cmd/harness/testdata/streamhook", filepath.Join(dir, "bin", "streamhook"))
	return deepseekConfig(url, "", fmt.Sprintf(`
hook "guard" {
  path    = "./bin/streamhook"
  sha256  = %q
  phases  = ["llm/stream"]
  timeout = "30s"
}
`, sum))
}

// hookEvents are the llm/stream events the streamhook plugin saw.
func hookEvents(t *testing.T, dir string) []sdk.HookEvent {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "streamhook.jsonl"))
	if err != nil {
		t.Fatalf("the hook recorded nothing: %v", err)
	}
	var evs []sdk.HookEvent
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev sdk.HookEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("hook log line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestStreamHookVetoesRequest: an llm/stream hook that denies stops the
// request before it reaches the provider, and the run says which hook and
// why.
func TestStreamHookVetoesRequest(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t, answer)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), streamHookConfig(t, dir, fake.URL))
	writeFile(t, filepath.Join(dir, "streamhook.veto"), "the team's budget for today is spent\n")
	r := harness(t, dir, keyEnv, "run", "--json", "--no-input", "agent.hcl", "Say hi")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the run failed)\n%s", r.code, r.stderr)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the server got %d requests after a veto, want 0", n)
	}
	evs := parseEvents(t, r.stdout)
	if kind := errorKind(evs); kind != string(sdk.KindDenied) {
		t.Errorf("error kind %q, want denied", kind)
	}
	want := `llm/stream hook "guard" vetoed the request to model "flash": the team's budget for today is spent`
	if errs := eventData(evs, "error"); len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0]["message"]), want) {
		t.Errorf("error events %v, want one saying %q", errs, want)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
	}
	if evs := hookEvents(t, dir); len(evs) != 1 || evs[0].Stage != sdk.StageBefore {
		t.Errorf("hook saw %+v, want only the before event", evs)
	}
}

// TestStreamHookObserves: a hook that only observes sees each request
// before (its metadata lands in llm.request) and after (the assembled
// message and its usage), and the run completes.
func TestStreamHookObserves(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Hi there."}))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), streamHookConfig(t, dir, fake.URL))
	r := harness(t, dir, keyEnv, "run", "--json", "--no-input", "agent.hcl", "Say hi")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	reqs := eventData(parseEvents(t, r.stdout), "llm.request")
	if len(reqs) != 1 || fmt.Sprint(reqs[0]["hook_metadata"]) != "map[guard:streamhook]" {
		t.Fatalf("llm.request events %v, want one with the hook's metadata", reqs)
	}
	evs := hookEvents(t, dir)
	if len(evs) != 2 || evs[0].Stage != sdk.StageBefore || evs[1].Stage != sdk.StageAfter {
		t.Fatalf("hook saw %+v, want before and after", evs)
	}
	after := evs[1]
	if after.Model != "flash" || after.Provider != "deepseek" || after.Agent != "coder" || after.SessionID == "" {
		t.Errorf("after event %+v, want model flash of provider deepseek, agent coder, a session", after)
	}
	if !strings.Contains(string(after.Message), `"content":"Hi there."`) || after.Usage == nil || after.Usage.CompletionTokens == 0 {
		t.Errorf("after event message %s usage %+v, want the answer and its usage", after.Message, after.Usage)
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
