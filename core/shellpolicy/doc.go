// Package shellpolicy classifies a terminal command against an agent's
// permissions before anything runs it.
//
// It owns the static reading of a command string: parsing it in the dialect of
// the shell that will run it, finding every program it would start and every
// file it would redirect into, and deciding Deny, Allow or Ask by the
// permissions block (terminal, allow_commands, deny_commands, write). It does
// not run commands, ask people, call approve hooks, remember "always" answers,
// honour --yes or unattended: the action pipeline does, and uses a Verdict's
// Rule as the reason of its action.decided event. It is not a sandbox either:
// it reads text, and what a program does once started is the program's
// business.
//
// # Order
//
// The first rule that applies decides (DESIGN §6):
//
//  1. Deny: a simple command matches a deny_commands pattern; terminal is
//     "deny"; a redirection writes a file outside the workspace.
//  2. Ask, whatever the rest says, when the command does not parse (Rule
//     "unparsable"), when something it runs or writes is known only when
//     it runs (see Expansions), or when it has the shell run code the
//     command line does not show (see Code the shell evaluates).
//  3. Allow by allow_commands: every simple command is covered by a pattern,
//     no variable is set, and every file redirection lands inside
//     permissions.write. A command line with no simple command at all is not
//     approved this way.
//  4. Allow by terminal = "allow" (every redirection is inside the workspace
//     by then).
//  5. Ask, naming the first reason no rule approved it.
//
// A command that does not parse completely is never allowed. The statements
// that parsed before the syntax error are still checked for denials, so
// `rm -rf x; echo 'oops` is denied rather than asked.
//
// # What is a simple command
//
// Every simple command counts, wherever it is: in lists (; && || & and
// newlines), pipelines, subshells, { } groups, if/while/until/for/case
// bodies, function bodies (defined or called), command and process
// substitutions in any word (arguments, assignments, redirection targets,
// here-documents with an unquoted delimiter), and the scripts of sh -c, bash
// -c, dash -c, zsh -c, ksh -c, eval, trap and env -S, parsed in their own
// dialect down to four levels of nesting. [[ ]], (( )) and let count as
// commands named "[[", "((" and "let"; export, declare, local, readonly and
// typeset as commands of those names.
//
// Wrappers are looked through to the command they run: command, builtin,
// exec, env (options and NAME=VALUE), nice, nohup, timeout, time, stdbuf,
// ionice, setsid and busybox change how a command runs, so allow patterns need
// to cover only the command inside, while deny patterns see both, so that
// deny_commands = ["nohup *"] works. sudo, doas, xargs, find (-exec, -execdir,
// -ok, -okdir, up to ; or +) and the shells are commands of their own: allow
// patterns must cover them and the commands they run. A transparent wrapper
// used with an option that does more than run the command (time -o FILE,
// env -C DIR) is treated as a command of its own too. git -c is not a wrapper.
// Leading assignments (X=1 rm x) are not part of the command's text.
//
// # Patterns
//
// A pattern is matched against a simple command's whole text: the program and
// its arguments joined by single spaces, quotes removed ("rm 'a b'" reads
// `rm a b`). In a pattern, * matches any run of characters, spaces and
// slashes included, ? matches one character, and everything else matches
// itself; runs of spaces in a pattern count as one. A pattern ending in " *"
// also matches the bare command: "rm *" matches rm alone, as whoever denies
// `rm *` means every rm. "git push *" matches `git push origin main`;
// "go test ./..." matches only that command.
//
// The program is matched by its base name (/bin/rm is rm) for deny patterns,
// which also see the path as written. Allow patterns see the program as
// written: ./ls or /tmp/ls may be a file the agent wrote, so "ls *" does not
// cover them; "./build.sh *" does.
//
// # Expansions
//
// A word with something the shell expands ($VAR, $(…), globs, {a,b}, ~) is
// matched by its source text: `rm $f` is denied by "rm *", and `ls *.go` is
// covered by "ls *". Because its value is not known, such a word can be
// covered by an allow pattern only through * or the same source text, never
// through ?. When a deny pattern could match once the expansions are known
// (`git $SUB origin` under "git push *"), or when xargs appends arguments
// that could complete a match, the command is asked, not allowed. A program
// that is itself an expansion (`$CMD x`, `"$(echo rm)" x`) is asked too, and
// so is a wrapper or shell whose options or script are expansions or whose
// options this package does not know.
//
// A command line that sets a variable (X=1 cmd, X=1; cmd, export X, env X=1,
// for X in …) is never approved by allow_commands: the shell can pass it to the
// programs it runs, and PATH, LD_PRELOAD, GOFLAGS, GIT_SSH_COMMAND and many
// more decide what those programs execute. terminal = "allow" still approves
// it.
//
// # Code the shell evaluates
//
// Some constructs make the shell run code the command line does not show.
// They are blockers: no allow rule and not terminal = "allow" approves them,
// a person must (deny rules still apply first).
//
//   - Arithmetic on anything but literal numbers: $(( )), $[ ], (( )),
//     let, for (( )), the sides of -eq, -lt and the other arithmetic
//     comparisons of [[ ]], array subscripts (${a[i]}, a[i]=, ([i]=v)) and
//     the offset and length of ${x:off:len}. bash evaluates the text of a
//     variable used there as arithmetic again, and an array subscript in it
//     runs commands: with out/p.txt holding a[$(touch X)],
//     `ls $(( $(<out/p.txt) ))` runs touch.
//   - Names bash looks up with their subscript: ${!x}, [[ -v ]], test -v
//     and -R, printf -v, read, getopts, wait -p, unset, mapfile and
//     declare/local/typeset with a name known only when it runs or with a
//     subscript that is not a number; declare -i and -n; test or [ with a
//     word that may split into several (an unquoted expansion or glob) or
//     that may be -v; printf whose first word, which may be -v, is an
//     expansion followed by more words; ${x@P} and zsh expansion flags
//     and glob qualifiers.
//   - Builtins that run code from elsewhere or change what a name runs:
//     source and ., eval, trap with an action, enable, alias with a
//     definition, hash -p, complete, compgen, bind, fc, mapfile -C.
//   - Variables that make a shell run code: BASH_ENV, ENV, PROMPT_COMMAND,
//     PS0, PS1, PS2, PS4, SHELLOPTS, BASHOPTS, BASH_LOADABLES_PATH and
//     BASH_FUNC_*, however they are set (X=…, export, env, read,
//     ${X:=…}). IFS is not among them: it only changes how values known
//     only at run time are split, and those are never trusted anyway.
//   - Redirections to or from bash's network paths /dev/tcp/HOST/PORT and
//     /dev/udp/HOST/PORT, in any direction, and reads from a place known
//     only when the command runs (which may be one).
//
// A command classified for sh is also read as bash would read it, because
// sh is bash on some systems and bash in POSIX mode keeps $[ ], [[ ]] and
// arrays.
//
// # Redirections
//
// A redirection that writes (> >> >| <> &> &>> and >&FILE) is a write of its
// target, and so is the file named by an option with which a program writes
// one (git --output, sort -o; an expansion in such a program's arguments is a
// write to a place known only when it runs). git --ext-diff, which runs a
// program the repository's configuration names, always needs a person. /dev/null, /dev/stdout and /dev/stderr are always fine; so are
// descriptor duplications and closings (2>&1, >&-), reads and
// here-documents. A relative target resolves against the workspace, the
// shell's working directory; after cd, pushd, popd, env -C, sudo -D or -i, or
// find -execdir, relative targets are known only when they run. Targets are
// resolved the way the kernel does: symlinks are followed component by
// component, dangling ones included, and ".." applies to the resolved path. A
// target that lands outside the workspace is denied; inside, it must match
// permissions.write (doublestar globs, on the resolved path relative to the
// workspace) for allow_commands to approve it.
//
// # Limits
//
// Allow rules are the strict gate: what they approve runs only the listed
// programs, with the arguments the patterns allow, and a pattern approves
// whatever those programs do with them ("git *" includes git -c
// core.pager=…). Deny rules are a filter, not a wall: a program that starts
// other programs or runs code it reads (python -c, make, a script file,
// `… | sh`, ssh, watch, parallel, chroot, su -c, git aliases) is opaque to a
// static reading beyond the wrappers listed above, so under terminal = "allow"
// a deny rule catches only what the command line shows. Redirection targets
// are resolved against the file system as it is when the command is
// classified: a command that first creates a symlink and then writes through
// it is stopped only by the sandbox (permissions.sandbox).
package shellpolicy
