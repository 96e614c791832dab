package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// mcpServer returns the path of an MCP server that scripts/test.sh installs
// from npm into .ci/npm; a plain go test skips when it is not there.
func mcpServer(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(repoRoot(t), ".ci", "npm", "node_modules", ".bin", name)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("HARNESS_TEST_MCP") == "required" { // set by scripts/test.sh, which installed them
			t.Fatalf("%s is missing although scripts/test.sh installed the MCP servers: %v", name, err)
		}
		t.Skipf("%s is not installed (scripts/test.sh installs it: npm ci --prefix .ci/npm): %v", name, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not installed: %v", err)
	}
	return path
}

// mcpBlock is an mcp block running command; approval "" leaves the default.
func mcpBlock(name, approval string, command ...string) string {
	q, _ := json.Marshal(command)
	b := fmt.Sprintf("mcp %q {\n  command = %s\n", name, q)
	if approval != "" {
		b += fmt.Sprintf("  approval = %q\n", approval)
	}
	return b + "}\n"
}

func calls(cs ...fakedeepseek.ToolCall) fakedeepseek.Response {
	return fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: cs})
}

// requestTools returns the names of the tools a request offered the model,
// with their parameters.
func requestTools(req fakedeepseek.Request) map[string]string {
	out := map[string]string{}
	list, _ := req.Body["tools"].([]any)
	for _, raw := range list {
		fn, _ := raw.(map[string]any)["function"].(map[string]any)
		params, _ := json.Marshal(fn["parameters"])
		out[fmt.Sprint(fn["name"])] = string(params)
	}
	return out
}

// toolReplies returns the content of the tool messages of a request by call id.
func toolReplies(t *testing.T, req fakedeepseek.Request) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range messagesOf(t, req) {
		if m["role"] == "tool" {
			out[fmt.Sprint(m["tool_call_id"])] = fmt.Sprint(m["content"])
		}
	}
	return out
}

// runIn runs `harness run --json --no-input EXTRA agent.hcl TASK` in dir.
func runIn(t *testing.T, dir string, extra ...string) fakeRun {
	t.Helper()
	args := append(append([]string{"run", "--json", "--no-input"}, extra...), "agent.hcl", "Use the MCP tools")
	r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, args...)
	fr := fakeRun{dir: dir, result: r}
	if strings.TrimSpace(r.stdout) != "" {
		fr.events = parseEvents(t, r.stdout)
	}
	return fr
}

func TestMCPEverythingResultsReachTheModel(t *testing.T) {
	t.Parallel()
	bin := mcpServer(t, "mcp-server-everything")
	fake := fakedeepseek.New(t,
		calls(
			fakedeepseek.ToolCall{ID: "c_echo", Name: "everything__echo", Arguments: `{"message":"hello from the model"}`},
			fakedeepseek.ToolCall{ID: "c_sum", Name: "everything__get-sum", Arguments: `{"a":2,"b":40}`},
			fakedeepseek.ToolCall{ID: "c_env", Name: "everything__get-env", Arguments: `{}`},
		),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The echo came back and the sum is 42."}),
	)
	cfg := withTools(deepseekConfig(fake.URL, "", mcpBlock("everything", "allow", bin)),
		"everything__echo", "everything__get-sum", "everything__get-env")
	run := runFake(t, cfg, nil)
	if run.result.code != 0 {
		t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	offered := requestTools(reqs[0])
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range offered {
			if !yield(n) {
				return
			}
		}
	})
	if want := []string{"everything__echo", "everything__get-env", "everything__get-sum"}; !slices.Equal(names, want) {
		t.Errorf("the model was offered %v, want exactly the whitelisted %v", names, want)
	}
	if !strings.Contains(offered["everything__get-sum"], `"a"`) || !strings.Contains(offered["everything__get-sum"], `"b"`) {
		t.Errorf("get-sum's parameters are not the server's schema: %s", offered["everything__get-sum"])
	}
	replies := toolReplies(t, reqs[1])
	if !strings.Contains(replies["c_echo"], "hello from the model") {
		t.Errorf("echo's result did not reach the model: %q", replies["c_echo"])
	}
	if !strings.Contains(replies["c_sum"], "42") {
		t.Errorf("get-sum's result did not reach the model: %q", replies["c_sum"])
	}
	if !strings.Contains(replies["c_env"], "PATH") || strings.Contains(replies["c_env"], apiKey) {
		t.Errorf("the server's environment is not the explicit one: %q", replies["c_env"])
	}
	if kinds := resultErrorKinds(run.events); !slices.Equal(kinds, []string{"", "", ""}) {
		t.Errorf("tool results: %v", kinds)
	}
	for _, d := range eventData(run.events, "tool.result") {
		if p, _ := d["presentation"].(map[string]any); p["kind"] != "text" {
			t.Errorf("presentation %v, want a text view", d["presentation"])
		}
	}
	assertNoProcsLeft(t, run.dir, 5*time.Second)
}

func TestMCPFilesystemWritesFollowTheApproval(t *testing.T) {
	t.Parallel()
	bin := mcpServer(t, "mcp-server-filesystem")
	tests := []struct {
		name, approval string
		flags          []string
		lands          bool
		decidedBy      string
	}{
		{"ask, nobody to answer", "", nil, false, "unattended"},
		{"deny", "deny", []string{"--yes"}, false, "policy"},
		{"allow", "allow", nil, true, ""},
		{"ask, --yes", "ask", []string{"--yes"}, true, "flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			root := filepath.Join(dir, "files")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(root, "note.txt")
			args, _ := json.Marshal(map[string]string{"path": target, "content": "written through MCP\n"})
			fake := fakedeepseek.New(t,
				calls(fakedeepseek.ToolCall{ID: "c_write", Name: "fs__write_file", Arguments: string(args)}),
				fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Done."}),
			)
			cfg := withTools(deepseekConfig(fake.URL, "", mcpBlock("fs", tt.approval, bin, root)), "fs__*")
			writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
			run := runIn(t, dir, tt.flags...)
			if run.result.code != 0 {
				t.Fatalf("exit %d\n%s", run.result.code, run.result.stderr)
			}
			body, err := os.ReadFile(target)
			if tt.lands && (err != nil || string(body) != "written through MCP\n") {
				t.Errorf("the approved write did not land: %q, %v", body, err)
			}
			if !tt.lands && err == nil {
				t.Errorf("the write landed although it was not approved")
			}
			kinds := resultErrorKinds(run.events)
			if want := map[bool]string{true: "", false: "denied"}[tt.lands]; len(kinds) != 1 || kinds[0] != want {
				t.Errorf("tool results %v, want [%q]", kinds, want)
			}
			decided := eventData(run.events, "action.decided")
			switch {
			case tt.decidedBy == "" && len(decided) != 0:
				t.Errorf("an allowed MCP call went through the action pipeline: %v", decided)
			case tt.decidedBy != "" && (len(decided) != 1 || decided[0]["by"] != tt.decidedBy):
				t.Errorf("action.decided %v, want one by %s", decided, tt.decidedBy)
			}
			if tt.decidedBy != "" {
				proposed := eventData(run.events, "action.proposed")
				if len(proposed) != 1 || proposed[0]["kind"] != "mcp" {
					t.Errorf("action.proposed %v, want one of kind mcp", proposed)
				}
			}
		})
	}
}

func TestMCPServerKilledMidCall(t *testing.T) {
	t.Parallel()
	bin := mcpServer(t, "mcp-server-everything")
	fake := fakedeepseek.New(t,
		calls(fakedeepseek.ToolCall{ID: "c_long", Name: "everything__trigger-long-running-operation", Arguments: `{"duration":30,"steps":30}`}),
		calls(fakedeepseek.ToolCall{ID: "c_echo", Name: "everything__echo", Arguments: `{"message":"after the crash"}`}),
		fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The server came back."}),
	)
	dir := t.TempDir()
	tap, arrived := testkit.StdinTap(t)
	block := strings.TrimSuffix(mcpBlock("everything", "allow", bin), "}\n") +
		fmt.Sprintf("  env = {\n    NODE_OPTIONS = %q\n    STDIN_TAP    = %q\n  }\n}\n", tap["NODE_OPTIONS"], tap["STDIN_TAP"])
	writeFile(t, filepath.Join(dir, "agent.hcl"),
		withTools(deepseekConfig(fake.URL, "", block), "everything__*"))
	r := startLive(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "agent.hcl", "Run the long operation")
	r.until(t, "tool.call")
	server := findProc(t, dir, 10*time.Second, "mcp-server-everything")
	testkit.WaitFor(t, func() bool { return arrived(`"tools/call"`) }, "the tools/call to reach the MCP server")
	if err := syscall.Kill(server.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderrText())
	}
	evs := r.events(t)
	if kinds := resultErrorKinds(evs); !slices.Equal(kinds, []string{"process_exit", ""}) {
		t.Fatalf("tool results %v, want a process_exit then a success", kinds)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	crash := toolReplies(t, reqs[1])["c_long"]
	if !strings.Contains(crash, "process_exit") || !strings.Contains(crash, "signal: killed") {
		t.Errorf("the model was not told the server died: %q", crash)
	}
	if echo := toolReplies(t, reqs[2])["c_echo"]; !strings.Contains(echo, "after the crash") {
		t.Errorf("the call after the crash: %q", echo)
	}
	assertNoProcsLeft(t, dir, 5*time.Second)
}

func TestMCPServerDoesNotOutliveAKilledHarness(t *testing.T) {
	t.Parallel()
	bin := mcpServer(t, "mcp-server-everything")
	fake := fakedeepseek.New(t,
		calls(fakedeepseek.ToolCall{ID: "c_long", Name: "everything__trigger-long-running-operation", Arguments: `{"duration":30,"steps":30}`}),
	)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"),
		withTools(deepseekConfig(fake.URL, "", mcpBlock("everything", "allow", bin)), "everything__*"))
	r := startLive(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "agent.hcl", "Run the long operation")
	r.until(t, "tool.call")
	findProc(t, dir, 10*time.Second, "mcp-server-everything")
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	assertNoProcsLeft(t, dir, 5*time.Second)
}

// A server that never reads its stdin does not notice harness's death
// either: only the parent-death signal stops it.
func TestMCPServerGetsAParentDeathSignal(t *testing.T) {
	t.Parallel()
	fake := fakedeepseek.New(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"),
		withTools(deepseekConfig(fake.URL, "", mcpBlock("deaf", "allow", "sleep", "307")), "deaf__*"))
	r := startLive(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "agent.hcl", "hello")
	findProc(t, dir, 10*time.Second, "sleep 307")
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	assertNoProcsLeft(t, dir, 5*time.Second)
}

func TestPluginsListShowsMCPServersAndTheirTools(t *testing.T) {
	t.Parallel()
	everything, fs := mcpServer(t, "mcp-server-everything"), mcpServer(t, "mcp-server-filesystem")
	dir := t.TempDir()
	cfg := deepseekConfig("http://127.0.0.1:1", "",
		mcpBlock("everything", "", everything)+mcpBlock("fs", "", fs, dir)+mcpBlock("broken", "", "no-such-mcp-server"))
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	r := harness(t, dir, []string{"TEST_DEEPSEEK_KEY=" + apiKey}, "plugins", "list", "agent.hcl")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == "mcp" {
			rows[f[0]] = line
		}
	}
	for server, wants := range map[string][]string{
		"everything": {everything, "everything__echo", "everything__get-sum", "everything__trigger-long-running-operation"},
		"fs":         {"fs__write_file", "fs__read_text_file"},
		"broken":     {"error:", `"no-such-mcp-server" is not in PATH`},
	} {
		for _, w := range wants {
			if !strings.Contains(rows[server], w) {
				t.Errorf("the %s row lacks %q:\n%s", server, w, r.stdout)
			}
		}
	}
	assertNoProcsLeft(t, dir, 5*time.Second)
}

func TestMCPServersStartOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	bin := mcpServer(t, "mcp-server-everything")
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	script := filepath.Join(dir, "server.sh")
	writeFile(t, script, fmt.Sprintf("#!/bin/sh\ntouch %q\nexec %q \"$@\"\n", marker, bin))
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{Text: "Nothing to do."}))
	other := "agent \"other\" {\n  model = \"flash\"\n  tools = [\"read_file\"]\n}\n"
	cfg := withTools(deepseekConfig(fake.URL, "", mcpBlock("marked", "allow", script)+other), "read_file", "marked__echo")
	writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
	env := []string{"TEST_DEEPSEEK_KEY=" + apiKey}
	started := func() bool { _, err := os.Stat(marker); return err == nil }

	if r := harness(t, dir, env, "validate", "agent.hcl"); r.code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if started() {
		t.Fatal("validate started the MCP server")
	}
	if r := harness(t, dir, env, "run", "--no-input", "--agent", "other", "agent.hcl", "hello"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if started() {
		t.Fatal("a run of an agent that uses none of its tools started the MCP server")
	}
	if r := harness(t, dir, env, "plugins", "list", "agent.hcl"); r.code != 0 || !strings.Contains(r.stdout, "marked__echo") {
		t.Fatalf("plugins list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !started() {
		t.Fatal("the marker script did not run: the test proves nothing")
	}
	assertNoProcsLeft(t, dir, 5*time.Second)
}
