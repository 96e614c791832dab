package approval_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Protected paths are refused by policy before any hook, rule, "always" or
// --yes is consulted, and the tool does not run.
func TestProtectedPathsAreRefused(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	put := func(name, body string) string {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := put("agent.hcl", "agent \"a\" {}\n")
	put("notes.txt", "x")
	bin := put("bin/tool", "#!/bin/sh\n")
	if err := os.Symlink("agent.hcl", filepath.Join(ws, "alias.hcl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(cfg, filepath.Join(ws, "hard.hcl")); err != nil {
		t.Fatal(err)
	}
	confDir := filepath.Join(ws, "conf")
	if err := os.Mkdir(confDir, 0o755); err != nil {
		t.Fatal(err)
	}
	protected := []approval.Protected{
		{Path: cfg, Why: "the agent's configuration"},
		{Path: filepath.Join(ws, config.LockFileName), Why: "the plugin lock file"},
		{Path: bin, Why: `the binary of plugin "tool"`},
		{Path: filepath.Join(ws, ".harness"), Why: "a legacy session store"},
		{Path: confDir, Why: "a directory configuration", NewHCL: true},
	}
	// Everything that could approve, at once: an allow-everything policy,
	// an approving hook, "always" and --yes.
	perm := config.Permissions{Terminal: config.PolicyAllow, Write: []string{"**"}}
	deny := func(rule string) want {
		return want{decision: approval.Denied, by: approval.ByPolicy, rule: rule, kind: sdk.KindDenied}
	}
	tests := []struct {
		name, tool string
		args       []byte
		want       want
		rulesOnly  bool // no hook, person or --yes: what the rules alone decide
	}{
		{"write_file to the config", "write_file", args("path", "agent.hcl", "content", "x"), deny("agent's configuration, a protected path"), false},
		{"write_file by absolute path", "write_file", args("path", cfg, "content", "x"), deny("protected path"), false},
		{"write_file through ..", "write_file", args("path", "bin/../agent.hcl", "content", "x"), deny("protected path"), false},
		{"write_file through a symlink", "write_file", args("path", "alias.hcl", "content", "x"), deny("agent.hcl"), false},
		{"write_file to a hard link", "write_file", args("path", "hard.hcl", "content", "x"), deny("protected path"), false},
		{"write_file creating the lock file", "write_file", args("path", config.LockFileName, "content", "x"), deny("plugin lock file"), false},
		{"write_file to a plugin binary", "write_file", args("path", "bin/tool", "content", "x"), deny(`plugin "tool"`), false},
		{"write_file into the legacy store", "write_file", args("path", ".harness/harness.db", "content", "x"), deny("legacy session store"), false},
		{"write_file adding a config file", "write_file", args("path", "conf/evil.hcl", "content", "x"), deny("directory configuration"), false},
		{"write_file elsewhere in a config dir", "write_file", args("path", "conf/notes.md", "content", "x"), want{}, false},
		{"write_file elsewhere", "write_file", args("path", "notes.txt", "content", "y"), want{}, false},
		{"redirection", "terminal", args("command", "echo x > agent.hcl"), deny("redirection into a protected path"), false},
		{"appending redirection via symlink", "terminal", args("command", "echo x >> alias.hcl"), deny("redirection into a protected path"), false},
		{"redirection to the lock file", "terminal", args("command", "echo 'plugin {}' > .harness.lock.hcl"), deny("plugin lock file"), false},
		{"redirection in bash -c", "terminal", args("command", "bash -c 'echo x > agent.hcl'"), deny("redirection into a protected path"), false},
		{"redirection after cd", "terminal", args("command", "cd bin && echo x > ../agent.hcl"), deny("redirection into a protected path"), false},
		{"clobbering redirection through ..", "terminal", args("command", "echo x >| bin/../agent.hcl"), deny("redirection into a protected path"), false},
		{"read-write redirection", "terminal", args("command", "echo x 1<>agent.hcl"), deny("protected path"), false},
		{"tee -a", "terminal", args("command", "echo x | tee -a agent.hcl"), deny("tee on a protected path"), false},
		{"through sudo", "terminal", args("command", "sudo sed -i s/a/b/ agent.hcl"), deny("sed on a protected path"), false},
		{"cp after cd", "terminal", args("command", "cd bin; cp ../notes.txt tool"), deny("cp on a protected path"), false},
		{"sed -i", "terminal", args("command", "sed -i s/ask/allow/ agent.hcl"), deny("sed on a protected path"), false},
		{"cp onto a plugin", "terminal", args("command", "cp notes.txt bin/tool"), deny("cp on a protected path"), false},
		{"mv of the folder holding a plugin", "terminal", args("command", "mv bin elsewhere"), deny("mv on a protected path"), false},
		{"dd of=", "terminal", args("command", "dd if=notes.txt of=agent.hcl"), deny("dd on a protected path"), false},
		{"reading the config needs a person", "terminal", args("command", "cat agent.hcl"),
			want{decision: approval.Denied, by: approval.ByUnattended, rule: "unattended", kind: sdk.KindDenied}, true},
		{"an unrelated command", "terminal", args("command", "echo hi > notes.txt"),
			want{decision: approval.Approved, by: approval.ByPolicy, rule: `terminal = "allow"`}, true},
	}
	store := openStore(t, ws)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := envOptions{perm: perm, protected: protected}
			if !tt.rulesOnly {
				o.yes, o.asker = true, &fakeAsker{answers: []approval.Answer{approval.Always}}
				o.hooks = []tools.Hook{approveHook(sdk.DecisionAllow, nil)}
			}
			check(t, newEnv(t, ws, store, o), nil, tt.tool, tt.args, tt.want)
		})
	}
}
