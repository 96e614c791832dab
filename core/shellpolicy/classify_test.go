package shellpolicy

import (
	"path/filepath"
	"strings"
	"testing"
)

// workspace returns a fresh workspace directory with symlinks resolved, as
// Policy.Workspace expects.
func workspace(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// bypasses are ways to hide an rm inside a command line. Each must be denied
// by deny_commands = ["rm *"] and never approved by allow_commands that do
// not list rm.
var bypasses = []struct {
	command  string
	bashOnly bool // uses syntax POSIX sh does not have
}{
	{command: "ls && rm -rf x"},
	{command: "ls; rm x"},
	{command: "ls || rm x"},
	{command: "ls | rm x"},
	{command: "ls\nrm x"},
	{command: "ls & rm x"},
	{command: "! rm x"},
	{command: "echo $(rm x)"},
	{command: "echo `rm x`"},
	{command: `echo "a $(rm x) b"`},
	{command: "X=$(rm x) ls"},
	{command: "ls > $(rm x)"},
	{command: "echo ${X:-$(rm x)}"},
	{command: "(rm x)"},
	{command: "{ rm x; }"},
	{command: "bash -c 'rm x'"},
	{command: `sh -c "ls; rm x"`},
	{command: "dash -c 'rm x'"},
	{command: "zsh -c 'rm x'"},
	{command: "bash -lc 'rm x'"},
	{command: "sh -e -c 'ls && rm x'"},
	{command: "bash -c \"sh -c 'rm x'\""},
	{command: "env X=1 rm x"},
	{command: "env -i PATH=/bin rm x"},
	{command: "env - rm x"},
	{command: "sudo rm x"},
	{command: "sudo -u root rm x"},
	{command: "sudo -E -u root -- rm x"},
	{command: "doas -u root rm x"},
	{command: "command rm x"},
	{command: "builtin command rm x"},
	{command: "exec rm x"},
	{command: "nice -n 5 rm x"},
	{command: "nice -5 rm x"},
	{command: "nohup rm x &"},
	{command: "timeout 5 rm x"},
	{command: "timeout -s KILL --kill-after=2 5 rm x"},
	{command: "time rm x"},
	{command: "stdbuf -oL rm x"},
	{command: "ionice -c 3 rm x"},
	{command: "setsid -w rm x"},
	{command: "busybox rm x"},
	{command: "nohup nice sudo env timeout 1 rm x"},
	{command: "xargs rm < list"},
	{command: "xargs -0 -n 1 rm < list"},
	{command: "xargs -I{} rm {} < list"},
	{command: "xargs sh -c 'rm \"$@\"' sh < list"},
	{command: "find . -exec rm {} +"},
	{command: `find . -name a -execdir rm {} \;`},
	{command: `find . -ok rm {} ';'`},
	{command: `find . -exec sh -c 'rm "$1"' sh {} \;`},
	{command: `find . -exec ls {} + -exec rm {} +`},
	{command: `find . -exec echo + \; -exec rm x \;`},
	{command: "/bin/rm x"},
	{command: "./rm x"},
	{command: `\rm x`},
	{command: `r\m x`},
	{command: `'r'm x`},
	{command: `"rm" x`},
	{command: "X=1 rm x"},
	{command: "X=1 Y=2 rm x"},
	{command: "cat <<EOF\n$(rm x)\nEOF"},
	{command: "cat <<EOF\n`rm x`\nEOF"},
	{command: "cat <<EOF &\n$(rm x)\nEOF\nls"},
	{command: "cat <<A; cat <<B\nx\nA\n$(rm x)\nB"},
	{command: "if true; then rm x; fi"},
	{command: "if rm x; then ls; fi"},
	{command: "if false; then ls; elif true; then ls; else rm x; fi"},
	{command: "while true; do rm x; done"},
	{command: "until false; do rm x; done"},
	{command: "for f in a; do rm $f; done"},
	{command: "for f in $(rm x); do ls; done"},
	{command: "case a in a) rm x;; esac"},
	{command: "f() { rm x; }; f"},
	{command: "f() { rm x; }"},
	{command: "eval 'rm x'"},
	{command: "eval rm x"},
	{command: "trap 'rm x' EXIT"},
	{command: "cat <(rm x)", bashOnly: true},
	{command: "ls > >(rm x)", bashOnly: true},
	{command: "function f { rm x; }; f", bashOnly: true},
	{command: "[[ $(rm x) ]]", bashOnly: true},
	{command: "time rm x", bashOnly: true},
	{command: "coproc rm x", bashOnly: true},
	{command: `$'\x72m' x`, bashOnly: true},
	{command: "rm"},
	{command: "rm -fr x"},
}

func TestBypassesAreDenied(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	for _, b := range bypasses {
		for _, d := range dialects(b.bashOnly) {
			for _, terminal := range []string{"ask", "allow"} {
				p := Policy{Terminal: terminal, DenyCommands: []string{"rm *"}, Workspace: ws, Dialect: d}
				v := Classify(b.command, p)
				if v.Decision != Deny || v.Rule != `deny_commands "rm *"` {
					t.Errorf("%s, terminal %s: Classify(%q) = %v %q, want deny by rm *; commands %v",
						dialectName(d), terminal, b.command, v.Decision, v.Rule, v.Commands)
				}
			}
		}
	}
}

func TestBypassesAreNotAllowed(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	for _, b := range bypasses {
		for _, d := range dialects(b.bashOnly) {
			p := Policy{Terminal: "ask", AllowCommands: []string{"ls *", "echo *", "cat *", "true", "false"}, Workspace: ws, Dialect: d}
			if v := Classify(b.command, p); v.Decision == Allow {
				t.Errorf("%s: Classify(%q) = allow (%s), want ask or deny", dialectName(d), b.command, v.Rule)
			}
		}
	}
}

func dialects(bashOnly bool) []Dialect {
	if bashOnly {
		return []Dialect{Bash}
	}
	return []Dialect{Bash, POSIX}
}

func dialectName(d Dialect) string {
	if d == Bash {
		return "bash"
	}
	return "posix"
}

func TestClassify(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	base := Policy{Workspace: ws, Dialect: Bash}
	with := func(edit func(*Policy)) Policy {
		p := base
		edit(&p)
		return p
	}
	allowEcho := with(func(p *Policy) {
		p.AllowCommands = []string{"echo *", "ls *", "go test ./...", "cat *"}
		p.WriteGlobs = []string{"src/**"}
	})
	terminalAllow := with(func(p *Policy) {
		p.Terminal = "allow"
		p.DenyCommands = []string{"rm *", "git push *"}
	})
	denyRm := with(func(p *Policy) { p.DenyCommands = []string{"rm *", "git push *"} })
	gitDiff := with(func(p *Policy) {
		p.AllowCommands = []string{"git diff *", "sort *"}
		p.WriteGlobs = []string{"src/**"}
	})
	tests := []struct {
		name     string
		command  string
		policy   Policy
		decision Decision
		rule     string // checked when not empty
	}{
		{"deny matches with options", "rm -fr x", denyRm, Deny, `deny_commands "rm *"`},
		// An option that writes a file is a write like a redirection: the
		// shipped examples allow "git diff *".
		{"git diff --output outside", "git diff --output=/etc/cron.d/x", gitDiff, Deny, "redirection outside workspace: /etc/cron.d/x"},
		{"git diff --output as two words", "git diff --output " + filepath.Join(ws, "..", "x"), gitDiff, Deny, ""},
		{"git diff --output outside write globs", "git diff --output=notes.txt", gitDiff, Ask, "needs approval: write to notes.txt is outside permissions.write"},
		{"git diff --output inside write globs", "git diff --output=src/patch.diff", gitDiff, Allow, "allow_commands"},
		{"git diff --output after -- is a path", "git diff -- --output=x", gitDiff, Allow, "allow_commands"},
		{"git diff with an expansion may write", "git diff $OPT", gitDiff, Ask, "needs approval: where $OPT writes is known only when it runs"},
		{"git diff --ext-diff runs a program", "git diff --ext-diff", gitDiff, Ask, "needs approval: git --ext-diff runs a program the repository's configuration names"},
		{"sort -o outside", "sort -o/etc/passwd f", gitDiff, Deny, "redirection outside workspace: /etc/passwd"},
		{"deny star matches bare program", "rm", denyRm, Deny, `deny_commands "rm *"`},
		{"deny subcommand", "git push origin main", denyRm, Deny, `deny_commands "git push *"`},
		{"deny subcommand bare", "git push", denyRm, Deny, `deny_commands "git push *"`},
		{"deny leaves other subcommands", "git status", denyRm, Ask, `needs approval: "git status" matches no allow_commands`},
		{"deny through quoting", "git 'push' origin", denyRm, Deny, ""},
		{"deny matches wrapper text", "nohup ls", with(func(p *Policy) { p.DenyCommands = []string{"nohup *"} }), Deny, `deny_commands "nohup *"`},
		{"deny matches runner", "sudo ls", with(func(p *Policy) { p.DenyCommands = []string{"sudo *"} }), Deny, ""},
		{"deny matches path as written", "/usr/bin/git push", with(func(p *Policy) { p.DenyCommands = []string{"/usr/bin/*"} }), Deny, ""},
		{"deny on literal source of expansion", "rm $f", denyRm, Deny, ""},
		{"terminal deny", "ls", with(func(p *Policy) { p.Terminal = "deny"; p.AllowCommands = []string{"ls *"} }), Deny, `terminal = "deny"`},
		{"terminal deny unparsable", "ls 'x", with(func(p *Policy) { p.Terminal = "deny" }), Deny, `terminal = "deny"`},
		{"deny before terminal deny", "rm x", with(func(p *Policy) { p.Terminal = "deny"; p.DenyCommands = []string{"rm *"} }), Deny, `deny_commands "rm *"`},

		{"allow exact", "go test ./...", allowEcho, Allow, "allow_commands"},
		{"allow exact refuses more args", "go test ./... -run X", allowEcho, Ask, ""},
		{"allow needs every command", "go test ./... && rm x", allowEcho, Ask, `needs approval: "rm x" matches no allow_commands`},
		{"allow star covers bare", "ls", allowEcho, Allow, "allow_commands"},
		{"allow pipeline", "ls -la | cat -n", allowEcho, Allow, "allow_commands"},
		{"allow covers variables as words", "echo $HOME", allowEcho, Allow, "allow_commands"},
		{"allow covers globs", "ls *.go", allowEcho, Allow, "allow_commands"},
		{"allow through transparent wrapper", "timeout 60 go test ./...", allowEcho, Allow, "allow_commands"},
		{"allow through nice", "nice -n 10 ls", allowEcho, Allow, "allow_commands"},
		{"runner must be covered", "sudo ls", allowEcho, Ask, `needs approval: "sudo ls" matches no allow_commands`},
		{"runner and command covered", "xargs ls < list", with(func(p *Policy) { p.AllowCommands = []string{"xargs *", "ls *"} }), Allow, "allow_commands"},
		{"xargs appends args exact pattern", "xargs git < list", with(func(p *Policy) { p.AllowCommands = []string{"xargs *", "git status"} }), Ask, ""},
		{"shell script is looked into", "bash -c 'ls'", with(func(p *Policy) { p.AllowCommands = []string{"bash -c *", "ls *"} }), Allow, "allow_commands"},
		{"path program not covered by base name", "/tmp/ls", allowEcho, Ask, `needs approval: "/tmp/ls" matches no allow_commands`},
		{"relative path program", "./ls -la", allowEcho, Ask, ""},
		{"wrapper with opaque option", `\time -o out ls`, allowEcho, Ask, `needs approval: "time -o out ls" matches no allow_commands`},
		{"bash time keyword", "time ls", allowEcho, Allow, "allow_commands"},
		{"command -v runs nothing", "command -v rm", denyRm, Ask, `needs approval: "command -v rm" matches no allow_commands`},
		{"leading assignment", "CGO_ENABLED=0 go test ./...", allowEcho, Ask, "needs approval: sets variable CGO_ENABLED, which allow_commands never approve"},
		{"assignment statement", "PATH=src:$PATH; ls", allowEcho, Ask, "needs approval: sets variable PATH, which allow_commands never approve"},
		{"posix export", "export PATH=src; ls", with(func(p *Policy) { p.Dialect = POSIX; p.AllowCommands = []string{"ls *", "export *"} }), Ask, "needs approval: sets variable PATH, which allow_commands never approve"},
		{"bash export", "export PATH=src; ls", with(func(p *Policy) { p.AllowCommands = []string{"ls *", "export *"} }), Ask, "needs approval: sets variable PATH, which allow_commands never approve"},
		{"builtin export", "builtin export PATH=src; ls", with(func(p *Policy) { p.AllowCommands = []string{"ls *", "export *"} }), Ask, "needs approval: sets variable PATH, which allow_commands never approve"},
		{"for variable", "for PATH in src; do ls; done", allowEcho, Ask, "needs approval: sets variable PATH, which allow_commands never approve"},
		{"env assignment", "env GOFLAGS=-toolexec=x go test ./...", allowEcho, Ask, "needs approval: sets variable GOFLAGS, which allow_commands never approve"},
		{"assignment under terminal allow", "CGO_ENABLED=0 go test ./...", terminalAllow, Allow, `terminal = "allow"`},
		{"empty command", "", allowEcho, Ask, "needs approval: no command for allow_commands to cover"},
		{"comment only", "# rm x", denyRm, Ask, ""},

		{"unknown program", "$CMD x", terminalAllow, Ask, `needs approval: the program of "$CMD x" is known only when it runs`},
		{"substituted program", `"$(echo rm)" x`, terminalAllow, Ask, ""},
		{"brace expansion program", "{rm,x}", terminalAllow, Ask, ""},
		{"glob program", "/bin/r? x", terminalAllow, Ask, ""},
		{"tilde program", "~/bin/tool", terminalAllow, Ask, ""},
		{"wrapper with expansion", "timeout $T rm x", terminalAllow, Deny, `deny_commands "rm *"`},
		{"wrapper options unknown", "nice $OPTS ls", terminalAllow, Ask, `needs approval: cannot tell what "nice $OPTS ls" runs`},
		{"dynamic script", `sh -c "$X"`, terminalAllow, Ask, `needs approval: the script of "sh -c \"$X\"" is known only when it runs`},
		{"eval of expansion", `eval "$X"`, terminalAllow, Ask, ""},
		{"xargs program from input", "xargs sudo < list", terminalAllow, Ask, ""},
		{"argument may be denied", "git $SUB origin", terminalAllow, Ask, `needs approval: "git $SUB origin" may match deny_commands "git push *" once expanded`},
		{"brace argument may be denied", "git {pu,x}sh origin", terminalAllow, Ask, ""},
		{"appended argument may be denied", "xargs git < args", terminalAllow, Ask, `needs approval: "git" may match deny_commands "git push *" once expanded`},
		{"expansion that cannot match", "ls $X", terminalAllow, Allow, `terminal = "allow"`},
		{"terminal allow", "curl -s https://example.com", terminalAllow, Allow, `terminal = "allow"`},
		{"ask names the command", "curl x", allowEcho, Ask, `needs approval: "curl x" matches no allow_commands`},
		{"unknown terminal value is ask", "curl x", with(func(p *Policy) { p.Terminal = "yes" }), Ask, ""},
		{"too deep", nested("ls", 5), terminalAllow, Ask, "needs approval: shell scripts nest deeper than 4 levels"},

		{"unparsable", "ls 'unterminated", terminalAllow, Ask, "unparsable"},
		{"unparsable with allow", "ls 'unterminated", allowEcho, Ask, "unparsable"},
		{"unparsable keeps trusted prefix deny", "rm x; ls 'unterminated", denyRm, Deny, `deny_commands "rm *"`},
		{"unparsable nested script", `bash -c "ls 'x"`, terminalAllow, Ask, "unparsable"},
		{"unparsable nested prefix deny", `bash -c "rm x; ls 'x"`, terminalAllow, Deny, ""},
		{"deny after unparsable nested script", `bash -c "ls 'x"; bash -c "rm x"`, terminalAllow, Deny, ""},
		{"bash syntax in posix", "cat <(ls)", with(func(p *Policy) { p.Dialect = POSIX; p.Terminal = "allow" }), Ask, "unparsable"},
		{"ansi-c quote in posix", `$'\x72m' x`, with(func(p *Policy) { p.Dialect = POSIX; p.Terminal = "allow"; p.DenyCommands = []string{"rm *"} }), Ask, ""},

		{"write inside write globs", "echo x > src/a.go", allowEcho, Allow, "allow_commands"},
		{"append inside write globs", "echo x >> src/deep/a.go", allowEcho, Allow, "allow_commands"},
		{"write outside write globs", "echo x > docs/a", allowEcho, Ask, "needs approval: write to docs/a is outside permissions.write"},
		{"write outside write globs terminal allow", "echo x > docs/a", terminalAllow, Allow, `terminal = "allow"`},
		{"write parent escape", "echo x > ../f", terminalAllow, Deny, "redirection outside workspace: ../f"},
		{"write escape through dots", "echo x > src/../../f", allowEcho, Deny, "redirection outside workspace: src/../../f"},
		{"write absolute outside", "echo x > /etc/passwd", terminalAllow, Deny, "redirection outside workspace: /etc/passwd"},
		{"write absolute inside", "echo x > " + filepath.Join(ws, "src", "a.go"), allowEcho, Allow, "allow_commands"},
		{"write all outside", "ls &> /tmp/out", terminalAllow, Deny, "redirection outside workspace: /tmp/out"},
		{"write dup to file", "ls >&/tmp/out", terminalAllow, Deny, ""},
		{"read outside is fine", "cat < /etc/hostname", allowEcho, Allow, "allow_commands"},
		{"devices and dups are fine", "ls > /dev/null 2>&1", allowEcho, Allow, "allow_commands"},
		{"stderr device", "ls 2>/dev/stderr >&2 3>&-", allowEcho, Allow, "allow_commands"},
		{"write target expansion", "echo x > $F", terminalAllow, Ask, "needs approval: where $F writes is known only when it runs"},
		{"write target tilde", "echo x > ~/f", terminalAllow, Ask, ""},
		{"write after cd", "cd sub && echo x > f", terminalAllow, Ask, "needs approval: where f writes is known only when it runs"},
		{"write after cd absolute still denied", "cd sub && echo x > /etc/f", terminalAllow, Deny, ""},
		{"write in nested chdir", "env -C / sh -c 'echo x > etc/f'", terminalAllow, Ask, ""},
		{"write in nested script", "sh -c 'echo x > ../f'", terminalAllow, Deny, "redirection outside workspace: ../f"},
		{"write on compound command", "{ ls; } > ../f", terminalAllow, Deny, ""},
		{"exec redirect", "exec 3> ../f", terminalAllow, Deny, ""},
		{"redirect deny precedes", "rm x > ../f", denyRm, Deny, `deny_commands "rm *"`},
		{"no workspace", "echo x > f", with(func(p *Policy) { p.Workspace = ""; p.Terminal = "allow" }), Ask, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := Classify(tt.command, tt.policy)
			if v.Decision != tt.decision || tt.rule != "" && v.Rule != tt.rule {
				t.Errorf("Classify(%q) = %v %q, want %v %q; commands %v", tt.command, v.Decision, v.Rule, tt.decision, tt.rule, v.Commands)
			}
			if !v.Parsed && v.Decision == Allow {
				t.Errorf("Classify(%q) allowed an unparsed command", tt.command)
			}
		})
	}
}

// nested wraps command in depth levels of sh -c.
func nested(command string, depth int) string {
	for range depth {
		command = "sh -c '" + strings.ReplaceAll(command, "'", `'\''`) + "'"
	}
	return command
}

func TestVerdictDescribesCommand(t *testing.T) {
	t.Parallel()
	v := Classify(`X=1 sudo -u root /bin/rm -f "a b" $f > out.txt 2>&1 | tee /dev/null`, Policy{Workspace: workspace(t), Dialect: Bash})
	want := []SimpleCommand{
		{Program: "sudo", Args: []string{"-u", "root", "/bin/rm", "-f", "a b", "$f"}, Text: "sudo -u root /bin/rm -f a b $f"},
		{Program: "rm", Args: []string{"-f", "a b", "$f"}, Text: "rm -f a b $f"},
		{Program: "tee", Args: []string{"/dev/null"}, Text: "tee /dev/null"},
	}
	if len(v.Commands) != len(want) {
		t.Fatalf("Commands = %+v, want %+v", v.Commands, want)
	}
	for i := range want {
		got := v.Commands[i]
		if got.Program != want[i].Program || got.Text != want[i].Text || strings.Join(got.Args, "|") != strings.Join(want[i].Args, "|") {
			t.Errorf("Commands[%d] = %+v, want %+v", i, got, want[i])
		}
	}
	if len(v.Writes) != 1 || v.Writes[0] != "out.txt" {
		t.Errorf("Writes = %q, want [out.txt]", v.Writes)
	}
	if !v.Parsed {
		t.Error("Parsed = false")
	}
}

func TestDialectFor(t *testing.T) {
	t.Parallel()
	for shell, want := range map[string]Dialect{
		"/bin/bash": Bash, "bash": Bash, "/usr/local/bin/bash": Bash,
		"/bin/sh": POSIX, "/bin/dash": POSIX, "zsh": POSIX, "": POSIX,
	} {
		if got := DialectFor(shell); got != want {
			t.Errorf("DialectFor(%q) = %v, want %v", shell, got, want)
		}
	}
}

func TestDecisionString(t *testing.T) {
	t.Parallel()
	for d, want := range map[Decision]string{Deny: "deny", Allow: "allow", Ask: "ask", Decision(9): "Decision(9)"} {
		if got := d.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(d), got, want)
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	p := Policy{
		Terminal:      "ask",
		AllowCommands: []string{"go test ./...", "git status", "ls *", "cat *", "grep *"},
		DenyCommands:  []string{"rm *", "git push *"},
		Workspace:     workspace(b),
		WriteGlobs:    []string{"src/**", "docs/*.md"},
		Dialect:       Bash,
	}
	commands := []string{
		"go test ./...",
		"ls -la src | grep -v _test.go > src/files.txt 2>&1",
		`find . -name '*.go' -exec grep -l "func main" {} + | xargs cat`,
		`bash -c 'for f in $(ls); do echo "$f"; done' && git push origin main`,
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range commands {
			Classify(c, p)
		}
	}
}
