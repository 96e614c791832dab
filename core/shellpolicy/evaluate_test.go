package shellpolicy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// payloads are the files a hostile workspace holds for codeAttacks, with
// CANARY standing for a file the attack creates if it runs.
var payloads = map[string]string{
	"out/p.txt":     "a[$(touch CANARY)]",              // bash runs the subscript when it evaluates the text
	"out/s.sh":      "touch CANARY",                    // a script to source
	"out/ps.txt":    "$(touch CANARY)",                 // a prompt string
	"out/split.txt": "x -o -v a[$(touch${IFS}CANARY)]", // words for test to split
	"out/v.txt":     "-v",
}

// codeAttacks are commands that make the shell run code the command line does
// not show, or open a network connection. None may be approved by any rule,
// terminal = "allow" included. live ones are run with bash to show the
// attack is real: each creates CANARY.
var codeAttacks = []struct {
	command string
	live    bool
}{
	// The case and arithmetic in every form bash has.
	{"ls $(( $(<out/p.txt) ))", true},
	{"ls $[ $(<out/p.txt) ]", true},
	{"x=$(<out/p.txt); ls $((x))", true},
	{"read -r x < out/p.txt; ls $((x + 1))", true},
	{"(( $(<out/p.txt) ))", true},
	{"let \"x=$(<out/p.txt)\"", true},
	{"read -r x < out/p.txt; let x", true},
	{"builtin let \"$(<out/p.txt)\"", true},
	{"for (( i=$(<out/p.txt); i<1; i++ )); do ls; done", true},
	{"x=$(<out/p.txt); case 1 in $((x))) ls;; esac", true},
	{"[[ $(<out/p.txt) -eq 1 ]]", true},
	{"read -r x < out/p.txt; [[ x -lt 1 ]]", true},
	{"[[ 1 -ne \"$(<out/p.txt)\" ]]", true},
	// Array subscripts and slices fed by an expansion.
	{"ls ${a[$(<out/p.txt)]}", true},
	{"x=$(<out/p.txt); ls ${a[x]}", true},
	{"a[$(<out/p.txt)]=1", true},
	{"a=([$(<out/p.txt)]=1)", true},
	{"declare -a b; b+=([$(<out/p.txt)]=1)", true},
	{": ${a[$(<out/p.txt)]:=1}", true},
	{"set -- a; ls ${@:$(<out/p.txt)}", true},
	{"ls ${PWD:1:$(<out/p.txt)}", true},
	// Names bash looks up, subscript and all.
	{"x=$(<out/p.txt); ls ${!x}", true},
	{"printf -v \"$(<out/p.txt)\" %s 1", true},
	{"printf \"$(<out/v.txt)\" \"$(<out/p.txt)\" %s", true},
	{"read \"$(<out/p.txt)\" <<< 1", true},
	{"[ -v \"$(<out/p.txt)\" ]", true},
	{"test -v \"$(<out/p.txt)\"", true},
	{"[[ -v $(<out/p.txt) ]]", false},
	{"[ -n $(<out/split.txt) ]", true},
	{"[ \"$(<out/v.txt)\" \"$(<out/p.txt)\" ]", true},
	{"declare \"$(<out/p.txt)=1\"", true},
	{"f() { local \"$(<out/p.txt)\"=1; }; f", true},
	{"declare -n r=\"$(<out/p.txt)\"; ls $r", true},
	{"declare -i n; n=$(<out/p.txt)", true},
	{"typeset -i n=0; n=$(<out/p.txt)", true},
	{"unset \"$(<out/p.txt)\"", false},
	{"getopts a \"$(<out/p.txt)\"", false},
	{"wait -p \"$(<out/p.txt)\"", false},
	{"mapfile -t \"$(<out/p.txt)\" < /dev/null", false},
	// Expansions that evaluate a value as code.
	{"x=$(<out/ps.txt); ls ${x@P}", true},
	{"zsh -c 'ls ${(e)x}'", false},
	{"zsh -c 'ls *(e:\"touch x\":)'", false},
	// Code from a file, a string, or a name that now runs something else.
	{"source out/s.sh", true},
	{". out/s.sh", true},
	{"builtin source out/s.sh", true},
	{"command . out/s.sh", true},
	{"eval \"$(<out/s.sh)\"", true},
	{"eval ls", false},
	{"trap \"$(<out/s.sh)\" EXIT; ls", true},
	{"trap ls EXIT", false},
	{"shopt -s expand_aliases\nalias ls=\"$(<out/s.sh)\"\nls", true},
	{"alias ll='ls -l'", false},
	{"hash -p /usr/bin/touch ls; ls CANARY", true},
	{"compgen -W \"\\$(touch CANARY)\" x", true},
	{"mapfile -C \"$(<out/s.sh) #\" -c 1 a < out/p.txt", true},
	{"readarray -C f a < /dev/null", false},
	{"complete -C ls x", false},
	{"enable -f ./evil.so evil", false},
	{"enable -n echo", false},
	{"bind -x '\"\\C-x\": ls'", false},
	{"fc -s ls", false},
	// Variables that make a shell run code.
	{"BASH_ENV=out/s.sh bash -c ls", true},
	{"export BASH_ENV=out/s.sh; bash -c ls", true},
	{"env BASH_ENV=out/s.sh bash -c ls", true},
	{"ENV=out/s.sh sh -i -c ls", false},
	{"PS4=\"$(<out/ps.txt)\"; set -x; ls", true},
	{"PS4='$(touch x)' bash -xc ls", false},
	{"PROMPT_COMMAND=ls bash -i", false},
	{"SHELLOPTS=xtrace bash -c ls", false},
	{"BASHOPTS=extdebug bash -c ls", false},
	{"env 'BASH_FUNC_ls%%=() { touch CANARY; }' bash -c ls", true},
	{"declare -x PS4='$(touch x)'", false},
	{"read -r BASH_ENV < out/p.txt", false},
	{": ${BASH_ENV:=out/s.sh}", false},
	// Network connections through bash's /dev/tcp and /dev/udp, both ways.
	{"ls < /dev/tcp/127.0.0.1/9", false},
	{"ls 3</dev/tcp/127.0.0.1/9", false},
	{"ls 3<>/dev/tcp/127.0.0.1/9", false},
	{"ls > /dev/tcp/127.0.0.1/9", false},
	{"ls >> /dev/udp/127.0.0.1/9", false},
	{"exec {fd}<>/dev/tcp/example.com/80", false},
	{"ls < '/dev/tcp/127.0.0.1/9'", false},
	{"ls < /dev//tcp/127.0.0.1/9", false},
	{"ls < /dev/./udp/127.0.0.1/9", false},
	{"ls $(< /dev/tcp/127.0.0.1/9)", false},
	{"ls < $TARGET", false},
	{"ls < /dev/$proto/127.0.0.1/9", false},
	{"cat <<EOF\n$(( $(<out/p.txt) ))\nEOF", true},
	{"bash -c 'ls $(( $(<out/p.txt) ))'", true},
}

// codeAttackPolicy approves, by a rule, every program the attacks use.
func codeAttackPolicy(ws string, d Dialect) Policy {
	return Policy{
		Terminal: "allow",
		AllowCommands: []string{"ls *", "cat *", "echo *", "test *", "[ *", "[[ *", "(( *", "let *", "printf *",
			"read *", "declare *", "typeset *", "local *", "source *", ". *", "eval *", "bash *", "sh *", "zsh *",
			"alias *", "hash *", "shopt *", "set *", "compgen *", "complete *", "mapfile *", "readarray *", "trap *",
			"enable *", "bind *", "fc *", "unset *", "getopts *", "wait *", "f", ": *", "export *", "env *"},
		Workspace:  ws,
		WriteGlobs: []string{"**"},
		Dialect:    d,
	}
}

func TestCodeTheShellEvaluatesNeedsAPerson(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	for _, a := range codeAttacks {
		for _, d := range []Dialect{Bash, POSIX} {
			v := Classify(a.command, codeAttackPolicy(ws, d))
			if v.Decision == Allow {
				t.Errorf("%s: Classify(%q) = allow (%s), want a person to decide", dialectName(d), a.command, v.Rule)
			}
			// A write to /dev/tcp is a write outside the workspace as well.
			denied := v.Decision == Deny && strings.HasPrefix(v.Rule, "redirection outside workspace: /dev/")
			if d == Bash && !denied && (v.Decision != Ask || !strings.HasPrefix(v.Rule, "needs approval: ")) {
				t.Errorf("bash: Classify(%q) = %v %q, want ask: needs approval", a.command, v.Decision, v.Rule)
			}
		}
	}
}

// TestCodeAttacksAreReal runs the live attacks in bash: each must create its
// canary, or the corpus would prove nothing.
func TestCodeAttacksAreReal(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: the attacks cannot be shown to run")
	}
	for _, a := range codeAttacks {
		if !a.live {
			continue
		}
		dir := t.TempDir()
		canary := filepath.Join(dir, "canary")
		for name, body := range payloads {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(strings.ReplaceAll(body, "CANARY", canary)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bash, "-c", strings.ReplaceAll(a.command, "CANARY", canary))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir)
		_ = cmd.Run() // many of them fail after the payload ran
		if _, err := os.Stat(canary); err != nil {
			t.Errorf("bash -c %q did not run its payload: the attack is not real", a.command)
		}
	}
}

// TestLiteralArithmeticStillRuns: what only literals feed stays approvable.
func TestLiteralArithmeticStillRuns(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	for _, command := range []string{
		"ls $((1 + 2))",
		"ls $(( (0x10 * 2#101) - 077 ))",
		"ls $[1]",
		"ls ${a[1]} ${a[@]} ${#a[*]} ${!a[@]} ${!prefix*}",
		"echo ${x:1:2} ${@:2} ${x:-default} ${x@Q}",
		"a[0]=1; b=([1]=x)",
		"(( 1 < 2 ))",
		"let 3",
		"for (( ; ; )); do break; done",
		"[[ 1 -eq 1 && -v HOME && -v a[2] ]]",
		"[[ $x == y ]]",
		`[ -n "$x" ]`,
		`[ "$a" = "$b" ]`,
		`test -f "$f"`,
		`[ -v HOME ]`,
		"cat < notes.txt",
		"ls 2>&1 <&0",
		"read -r line < notes.txt",
		"printf -v name %s 1",
		`printf '%s\n' "$x"`,
		`f() { local x=$1; }; f y`,
		"mapfile -t lines < notes.txt",
		"alias",
		"trap -p",
		"hash; hash -r",
		"for i in 1 2; do echo $i; done",
		"export PATH",
		"IFS=: read -r a b < notes.txt",
	} {
		p := codeAttackPolicy(ws, Bash)
		if v := Classify(command, p); v.Decision != Allow {
			t.Errorf("Classify(%q) = %v %q, want allow", command, v.Decision, v.Rule)
		}
	}
}
