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
	"time"

	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// call is one scripted tool call and the error kind its result must carry.
type call struct {
	tool string
	args map[string]any
	kind string
}

// scriptCalls returns a fake whose first answer makes every call at once and
// whose next answers end the run, and the call ids in order.
func scriptCalls(t *testing.T, calls []call) (*fakedeepseek.Server, []string) {
	t.Helper()
	var tcs []fakedeepseek.ToolCall
	var ids []string
	for i, c := range calls {
		args, err := json.Marshal(c.args)
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("call_%02d", i)
		ids = append(ids, id)
		tcs = append(tcs, fakedeepseek.ToolCall{ID: id, Name: c.tool, Arguments: string(args)})
	}
	fake := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: tcs}))
	fake.Repeat(answer)
	return fake, ids
}

// resultsByCall maps call ids to their tool.result data.
func resultsByCall(evs []event) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, d := range eventData(evs, "tool.result") {
		out[fmt.Sprint(d["call_id"])] = d
	}
	return out
}

func kindOf(result map[string]any) string {
	if e, ok := result["error"].(map[string]any); ok {
		return fmt.Sprint(e["kind"])
	}
	return ""
}

// TestSecurityPathEscape sends the path escape corpus to read_file,
// write_file and search_workspace through the real binary: every path that
// leads out of the workspace is path_escape, nothing outside is read or
// written, and a symlink that stays inside still works.
func TestSecurityPathEscape(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	// Searches look for "TOP-SECRET": only a leak shows the rest.
	const secret = "TOP-SECRET-7c41e2"
	writeFile(t, filepath.Join(outside, "secret.txt"), secret+"\n")
	writeFile(t, filepath.Join(ws, "notes.md"), "inside notes\n")
	if err := os.MkdirAll(filepath.Join(ws, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"toroot":   "/",
		"outlink":  outside,
		"inlink":   filepath.Join(ws, "notes.md"),
		"dangling": filepath.Join(outside, "made-through-dangling.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	viaRoot := "toroot" + outside // toroot/<root>/outside
	escapes := []string{
		"../outside/secret.txt",
		"/etc/passwd",
		filepath.Join(outside, "secret.txt"),
		"a/../../outside/secret.txt",
		"toroot/etc/passwd",
		viaRoot + "/secret.txt",
		"outlink/secret.txt",
		"notes.md\x00.txt",
	}
	var calls []call
	for _, p := range escapes {
		calls = append(calls, call{"read_file", map[string]any{"path": p}, "path_escape"})
	}
	calls = append(calls, call{"read_file", map[string]any{"path": "dangling"}, "path_escape"})
	writes := []string{"../outside/w1.txt", filepath.Join(outside, "w2.txt"), "a/../../outside/w3.txt",
		viaRoot + "/w4.txt", "outlink/w5.txt", "w6\x00.txt", "dangling"}
	for _, p := range writes {
		calls = append(calls, call{"write_file", map[string]any{"path": p, "content": "escaped\n"}, "path_escape"})
	}
	for _, p := range writes[:len(writes)-1] {
		calls = append(calls, call{"edit_file", map[string]any{"path": p, "old_string": "x", "new_string": "escaped"}, "path_escape"})
	}
	calls = append(calls, call{"edit_file", map[string]any{"path": "outlink/secret.txt", "old_string": "TOP-SECRET", "new_string": "escaped"}, "path_escape"})
	for _, p := range []string{"..", "../outside", "/etc", outside, "a/../..", "toroot/etc", "outlink", "a\x00"} {
		calls = append(calls, call{"search_workspace", map[string]any{"query": "TOP-SECRET", "path": p}, "path_escape"})
		calls = append(calls, call{"list_files", map[string]any{"path": p}, "path_escape"})
	}
	// Controls: a symlink that stays inside reads; a search of the whole
	// workspace does not follow a symlinked folder out of it.
	calls = append(calls,
		call{"read_file", map[string]any{"path": "inlink"}, ""},
		call{"search_workspace", map[string]any{"query": "TOP-SECRET"}, ""},
		call{"list_files", map[string]any{}, ""})

	fake, ids := scriptCalls(t, calls)
	cfg := withTools(deepseekConfig(fake.URL, "  permissions {\n    write = [\"**\"]\n  }", ""), "read_file", "write_file", "edit_file", "search_workspace", "list_files")
	writeFile(t, filepath.Join(ws, "agent.hcl"), cfg)
	r := harness(t, ws, keyEnv, "run", "--json", "--no-input", "agent.hcl", "Escape")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	results := resultsByCall(evs)
	for i, c := range calls {
		res, ok := results[ids[i]]
		if !ok {
			t.Errorf("%s %q: no tool.result", c.tool, c.args["path"])
			continue
		}
		got := kindOf(res)
		if got != c.kind {
			t.Errorf("%s %q: error kind %q, want %q (%v)", c.tool, c.args["path"], got, c.kind, res["error"])
		}
	}
	for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
		if strings.Contains(line, secret) {
			t.Errorf("the secret outside the workspace reached the output: %s", line)
		}
	}
	if res := results[ids[len(ids)-3]]; !strings.Contains(fmt.Sprint(res["content"]), "inside notes") {
		t.Errorf("reading a symlink that stays inside: %v", res)
	}
	if res := results[ids[len(ids)-1]]; strings.Contains(fmt.Sprint(res["content"]), "secret.txt") || !strings.Contains(fmt.Sprint(res["content"]), "notes.md") {
		t.Errorf("list_files of the workspace: %v", res)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "secret.txt")); err != nil || string(b) != secret+"\n" {
		t.Errorf("the file outside was changed: %q, %v", b, err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files appeared outside the workspace: %v", names)
	}
	for _, d := range eventData(evs, "action.proposed") {
		t.Errorf("an escaping write became an action someone could approve: %v", d)
	}
}

// bypasses are attempts to run a command that deny_commands = ["rm *"]
// forbids; VICTIM is replaced by a file of the attempt's own, OUTSIDE by a
// folder outside the workspace.
var bypasses = []string{
	"ls && rm -rf VICTIM",
	"ls; rm VICTIM",
	"ls || rm VICTIM",
	"echo $(rm VICTIM)",
	"echo `rm VICTIM`",
	"ls | rm VICTIM",
	"(rm VICTIM)",
	"{ rm VICTIM; }",
	"bash -c 'rm VICTIM'",
	`sh -c "ls; rm VICTIM"`,
	"bash -c \"sh -c 'rm VICTIM'\"",
	"env X=1 rm VICTIM",
	"X=1 rm VICTIM",
	"sudo rm VICTIM",
	"command rm VICTIM",
	"exec rm VICTIM",
	"nice -n 5 rm VICTIM",
	"nohup rm VICTIM",
	"timeout 5 rm VICTIM",
	"cat <<EOF\n$(rm VICTIM)\nEOF",
	"find . -name VICTIM -exec rm {} +",
	`find . -name VICTIM -exec sh -c 'rm "$1"' sh {} \;`,
	"echo VICTIM | xargs rm",
	"echo VICTIM | xargs -I{} rm {}",
	"ls\nrm VICTIM",
	"/bin/rm VICTIM",
	`\rm VICTIM`,
	`"rm" VICTIM`,
	"rm -fr VICTIM",
	"if true; then rm VICTIM; fi",
	"for f in VICTIM; do rm $f; done",
	"f() { rm VICTIM; }; f",
	"eval 'rm VICTIM'",
	"trap 'rm VICTIM' EXIT",
	"a=rm; $a VICTIM",
	"$(echo rm) VICTIM",
}

// stdinScripts are commands whose script a shell reads from its input: the
// policy cannot see those commands, so it must not let them run unasked.
var stdinScripts = []string{
	"sh <<'EOF'\nrm VICTIM\nEOF",
	"echo 'rm VICTIM' | sh",
}

// TestSecurityShellPolicy runs the bypass corpus through the real binary
// with terminal = "allow": anything the policy lets through really runs, so
// a surviving victim file shows the attempt was stopped.
func TestSecurityShellPolicy(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, commands []string) (string, []string, map[string]map[string]any, []event) {
		root := t.TempDir()
		ws := filepath.Join(root, "ws")
		var calls []call
		var victims []string
		for i, c := range commands {
			victim := fmt.Sprintf("victim%02d.txt", i)
			victims = append(victims, victim)
			writeFile(t, filepath.Join(ws, victim), "still here\n")
			c = strings.NewReplacer("VICTIM", victim, "OUTSIDE", root).Replace(c)
			calls = append(calls, call{"terminal", map[string]any{"command": c}, "denied"})
		}
		// The control shows that what the policy allows really runs.
		calls = append(calls, call{"terminal", map[string]any{"command": "touch control.txt"}, ""})
		fake, ids := scriptCalls(t, calls)
		cfg := withTools(deepseekConfig(fake.URL, "  permissions {\n    terminal      = \"allow\"\n    deny_commands = [\"rm *\"]\n  }", ""), "terminal")
		writeFile(t, filepath.Join(ws, "agent.hcl"), cfg)
		r := harness(t, ws, keyEnv, "run", "--json", "--no-input", "agent.hcl", "Delete")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		evs := parseEvents(t, r.stdout)
		results := resultsByCall(evs)
		if _, err := os.Stat(filepath.Join(ws, "control.txt")); err != nil || kindOf(results[ids[len(ids)-1]]) != "" {
			t.Fatalf("the allowed control command did not run: %v", results[ids[len(ids)-1]])
		}
		byID := map[string]map[string]any{}
		for i, victim := range victims {
			byID[victim] = results[ids[i]]
		}
		assertNoProcsLeft(t, ws, 2*time.Second)
		return ws, victims, byID, evs
	}

	t.Run("bypasses", func(t *testing.T) {
		t.Parallel()
		corpus := append(bypasses, "echo x > ../f", "echo x >> OUTSIDE/g")
		ws, victims, results, evs := run(t, corpus)
		for i, victim := range victims {
			if _, err := os.Stat(filepath.Join(ws, victim)); err != nil {
				t.Errorf("%q ran: %s is gone", corpus[i], victim)
			}
			if kind := kindOf(results[victim]); kind != "denied" {
				t.Errorf("%q: error kind %q, want denied", corpus[i], kind)
			}
		}
		for _, name := range []string{"f", "g"} {
			if _, err := os.Stat(filepath.Join(filepath.Dir(ws), name)); err == nil {
				t.Errorf("a redirection wrote %s outside the workspace", name)
			}
		}
		var denied int
		for _, d := range eventData(evs, "action.decided") {
			if d["decision"] == "denied" {
				denied++
			}
		}
		if denied != len(corpus) {
			t.Errorf("%d actions denied for %d commands", denied, len(corpus))
		}
	})
	t.Run("stdin_scripts", func(t *testing.T) {
		t.Parallel()
		ws, victims, _, _ := run(t, stdinScripts)
		var ran []string
		for i, victim := range victims {
			if _, err := os.Stat(filepath.Join(ws, victim)); err != nil {
				ran = append(ran, stdinScripts[i])
			}
		}
		if len(ran) > 0 {
			t.Errorf("a shell reading its script from its input ran rm past deny_commands: %q", ran)
		}
	})
}

// TestSecuritySecretLeak gives the API key through env() in HCL and looks for
// it, and for the last characters a 401 body echoes, everywhere it must not
// be: events, trace logs, the error, the store, the environment of every
// plugin and command.
func TestSecuritySecretLeak(t *testing.T) {
	t.Parallel()
	tail := apiKey[len(apiKey)-4:]
	fake := fakedeepseek.New(t,
		fakedeepseek.Scripted(terminalCall("call_env", "env; sleep 1")),
		fakedeepseek.HTTPError(401, "Authentication Fails, Your api key: ****"+tail+" is invalid", "authentication_error", "invalid_request_error"))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), terminalConfig(fake.URL))
	live := startLive(t, dir, append([]string{"HARNESS_LOG=trace"}, keyEnv...), "agent.hcl", "Show the environment")
	live.until(t, "tool.call")

	// While the command runs: no process but harness itself (which the user
	// gave the key) holds it in its environment.
	findProc(t, dir, 10*time.Second, "sleep 1")
	var seen int
	for _, p := range procsUnder(dir) {
		if p.pid == live.cmd.Process.Pid {
			continue
		}
		seen++
		environ, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(p.pid), "environ"))
		if err == nil && strings.Contains(string(environ), apiKey) {
			t.Errorf("the key is in the environment of pid %d %q", p.pid, p.cmdline)
		}
	}
	if seen < 3 {
		t.Errorf("saw %d processes besides harness, want the provider, the terminal and its command", seen)
	}
	if code := live.wait(t); code != 1 {
		t.Errorf("exit %d, want 1 (the second request fails with auth)", code)
	}
	evs := live.events(t)
	if errorKind(evs) != "auth" {
		t.Errorf("error kind %q, want auth", errorKind(evs))
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Authorization") != "Bearer "+apiKey {
		t.Fatalf("the key did not reach the provider: %d requests", len(reqs))
	}
	if env := fmt.Sprint(resultsByCall(evs)["call_env"]["content"]); !strings.Contains(env, "PATH=") {
		t.Errorf("the env command did not run: %q", env)
	}
	out := strings.Join(live.lines, "\n")
	stderr := live.stderrText()
	if !strings.Contains(stderr, `"@level":"trace"`) && !strings.Contains(stderr, "[TRACE]") {
		t.Errorf("HARNESS_LOG=trace logged nothing at trace level:\n%s", stderr)
	}
	for what, text := range map[string]string{"events": out, "stderr": stderr, "store": storeBytes(t)} {
		for _, needle := range []string{apiKey, apiKey[:len(apiKey)-4], "****" + tail} {
			if strings.Contains(text, needle) {
				t.Errorf("%s holds %q", what, needle)
			}
		}
	}
	assertNoProcsLeft(t, dir, 2*time.Second)
}

// storeBytes returns the bytes of the test's store files (database, WAL).
func storeBytes(t *testing.T) string {
	t.Helper()
	files, _ := filepath.Glob(storeFile(t) + "*")
	if len(files) == 0 {
		t.Fatal("no store")
	}
	var all strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	return all.String()
}

// jsonquery builds the example third-party plugin once and copies it to
// dst.
func jsonquery(t *testing.T, dst string) {
	t.Helper()
	testkit.CopyExecutable(t, buildPlugin(t, "./examples/plugins/jsonquery"), dst)
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestSecurityPluginTampering locks a third-party plugin, then changes it:
// `harness run` refuses to start it, naming the file and both hashes, and
// never executes the changed file.
func TestSecurityPluginTampering(t *testing.T) {
	t.Parallel()
	tamper := map[string]func(t *testing.T, bin, marker string){
		"appended_bytes": func(t *testing.T, bin, _ string) {
			f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString("tampered")
			f.Close()
		},
		"replaced_by_a_script": func(t *testing.T, bin, marker string) {
			if err := os.WriteFile(bin, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, change := range tamper {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin", "harness-tool-jsonquery")
			jsonquery(t, bin)
			fake := fakedeepseek.New(t)
			fake.Repeat(answer)
			cfg := withTools(deepseekConfig(fake.URL, "", "\nplugin \"jsonquery\" {\n  path = \"./bin/harness-tool-jsonquery\"\n}\n"), "read_file", "json_query")
			writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
			if r := harness(t, dir, nil, "plugins", "lock", "agent.hcl"); r.code != 0 {
				t.Fatalf("lock: %+v", r)
			}
			if r := harness(t, dir, keyEnv, "run", "--no-input", "agent.hcl", "hi"); r.code != 0 {
				t.Fatalf("run with the locked plugin: exit %d\n%s", r.code, r.stderr)
			}
			locked := sha256File(t, bin)
			marker := filepath.Join(dir, "tampered-plugin-ran")
			change(t, bin, marker)
			actual := sha256File(t, bin)

			r := harness(t, dir, keyEnv, "run", "--no-input", "agent.hcl", "hi")
			if r.code != 1 && r.code != 2 {
				t.Errorf("exit %d, want 1 or 2", r.code)
			}
			for _, want := range []string{"harness-tool-jsonquery", locked, actual} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("the refusal does not name %s:\n%s", want, r.stderr)
				}
			}
			// Once nothing of the run is left, a plugin it started has
			// written its marker.
			assertNoProcsLeft(t, dir, 2*time.Second)
			if _, err := os.Stat(marker); err == nil {
				t.Error("the changed plugin was executed")
			}
		})
	}
	t.Run("no_hash_anywhere", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		jsonquery(t, filepath.Join(dir, "bin", "harness-tool-jsonquery"))
		fake := fakedeepseek.New(t)
		fake.Repeat(answer)
		cfg := withTools(deepseekConfig(fake.URL, "", "\nplugin \"jsonquery\" {\n  path = \"./bin/harness-tool-jsonquery\"\n}\n"), "read_file", "json_query")
		writeFile(t, filepath.Join(dir, "agent.hcl"), cfg)
		r := harness(t, dir, keyEnv, "run", "--no-input", "agent.hcl", "hi")
		if (r.code != 1 && r.code != 2) || !strings.Contains(r.stderr, "harness plugins lock") {
			t.Errorf("unlocked plugin: exit %d\n%s", r.code, r.stderr)
		}
		if len(fake.Requests()) != 0 {
			t.Error("the run reached the model with an unverified plugin")
		}
	})
}
