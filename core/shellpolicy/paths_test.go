package shellpolicy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRedirectionThroughSymlinks(t *testing.T) {
	t.Parallel()
	ws, outside := workspace(t), workspace(t)
	mkdir(t, filepath.Join(ws, "src"))
	mkdir(t, filepath.Join(ws, "docs"))
	write(t, filepath.Join(outside, "secret"))
	symlink(t, outside, filepath.Join(ws, "out"))
	symlink(t, filepath.Join(outside, "secret"), filepath.Join(ws, "secret"))
	symlink(t, filepath.Join(outside, "missing"), filepath.Join(ws, "dangling"))
	symlink(t, "../..", filepath.Join(ws, "src", "up"))
	symlink(t, "src", filepath.Join(ws, "alias"))
	symlink(t, "../docs", filepath.Join(ws, "src", "docs"))
	symlink(t, "loop2", filepath.Join(ws, "loop1"))
	symlink(t, "loop1", filepath.Join(ws, "loop2"))
	via := filepath.Join(workspace(t), "via")
	symlink(t, ws, via)

	p := Policy{AllowCommands: []string{"echo *"}, WriteGlobs: []string{"src/**"}, Workspace: ws, Dialect: Bash}
	tests := []struct {
		command  string
		decision Decision
		rule     string
	}{
		{"echo x > out/f", Deny, "redirection outside workspace: out/f"},
		{"echo x > secret", Deny, "redirection outside workspace: secret"},
		{"echo x > dangling", Deny, "redirection outside workspace: dangling"},
		{"echo x > src/up/f", Deny, "redirection outside workspace: src/up/f"},
		{"echo x > out/../f", Deny, "redirection outside workspace: out/../f"},
		{"echo x > alias/a.go", Allow, "allow_commands"},
		{"echo x > src/docs/a.md", Ask, "needs approval: write to src/docs/a.md is outside permissions.write"},
		{"echo x > loop1", Ask, "needs approval: where loop1 writes is known only when it runs"},
		{"echo x > " + filepath.Join(via, "src", "a.go"), Allow, "allow_commands"},
		{"echo x > " + filepath.Join(via, "..", "f"), Deny, ""},
	}
	for _, tt := range tests {
		v := Classify(tt.command, p)
		if v.Decision != tt.decision || tt.rule != "" && v.Rule != tt.rule {
			t.Errorf("Classify(%q) = %v %q, want %v %q", tt.command, v.Decision, v.Rule, tt.decision, tt.rule)
		}
	}

	// A workspace given through a symlink still holds its own files.
	p.Workspace = via
	if v := Classify("echo x > src/a.go", p); v.Decision != Allow {
		t.Errorf("with workspace %s: Classify = %v %q, want allow", via, v.Decision, v.Rule)
	}
}

func TestRealPath(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	mkdir(t, filepath.Join(dir, "a", "b"))
	symlink(t, filepath.Join(dir, "a", "b"), filepath.Join(dir, "abs"))
	symlink(t, "a/b", filepath.Join(dir, "rel"))
	symlink(t, "self", filepath.Join(dir, "self"))
	tests := []struct {
		in, want string
		ok       bool
	}{
		{filepath.Join(dir, "a", "b", "f"), filepath.Join(dir, "a", "b", "f"), true},
		{filepath.Join(dir, "abs", "f"), filepath.Join(dir, "a", "b", "f"), true},
		{filepath.Join(dir, "rel", "f"), filepath.Join(dir, "a", "b", "f"), true},
		{filepath.Join(dir, "rel") + "/../f", filepath.Join(dir, "a", "f"), true},
		{filepath.Join(dir, "new", "x", "y"), filepath.Join(dir, "new", "x", "y"), true},
		{filepath.Join(dir, "self"), "", false},
		{"/", "/", true},
	}
	for _, tt := range tests {
		got, err := RealPath(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("RealPath(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestMatchWriteGlob(t *testing.T) {
	t.Parallel()
	globs := []string{"src/**", "./docs/*.md", "[bad"}
	for rel, want := range map[string]bool{
		"src/a.go": true, "src/x/y/z.go": true, "docs/a.md": true,
		"docs/x/a.md": false, "main.go": false, "srcx/a": false,
	} {
		if got := MatchWriteGlob(rel, globs) != ""; got != want {
			t.Errorf("MatchWriteGlob(%q) matched %v, want %v", rel, got, want)
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, file string) {
	t.Helper()
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}
