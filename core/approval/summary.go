package approval

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/shellpolicy"
	"github.com/harness-agent/harness/internal/textedit"
	"github.com/harness-agent/harness/sdk"
)

// maxSummary bounds a summary, in runes.
const maxSummary = 200

// maxDiffBytes bounds the files a summary diffs; larger ones are described
// by size.
const maxDiffBytes = 1 << 20

// oneLine puts text on one line and caps it, for people scanning a list.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	r := []rune(s)
	return string(r[:maxSummary-1]) + "…"
}

// toolSummary is a call as people read it: the tool and its arguments.
func toolSummary(call sdk.Call) string {
	return oneLine(call.Tool + " " + string(call.Arguments))
}

// change is what a write would do to a file of the workspace.
type change struct {
	before, after string
	exists        bool
	tooBig        bool  // the current file is over maxDiffBytes: described by size
	err           error // the current file cannot be read
}

// readChange reads the current content of the file at rel, of which the
// caller then sets after. It never blocks: a named pipe or a device is
// "unreadable", not opened for a read that would wait.
func readChange(workspace, rel string) change {
	b, exists, err := readCapped(filepath.Join(workspace, filepath.FromSlash(rel)))
	return change{before: string(b), exists: exists, tooBig: exists && err == nil && b == nil, err: err}
}

// readable reports whether the current content is known, so after can be
// computed from it.
func (c change) readable() bool { return c.err == nil && !c.tooBig }

// summary is a write as people read it: the path and a diff stat.
func (c change) summary(tool, rel string) string {
	verb := "write"
	if tool == config.EditFileTool {
		verb = "edit"
	}
	switch {
	case c.err != nil && tool == config.EditFileTool:
		return fmt.Sprintf("edit %s (current file unreadable: %v)", rel, c.err)
	case c.err != nil:
		return fmt.Sprintf("write %s (%d bytes; current file unreadable: %v)", rel, len(c.after), c.err)
	case !c.exists:
		return fmt.Sprintf("create %s (+%d lines)", rel, countLines(c.after))
	case c.tooBig && tool == config.EditFileTool:
		return fmt.Sprintf("edit %s (over %d MiB: not diffed)", rel, maxDiffBytes>>20)
	case c.tooBig || len(c.after) > maxDiffBytes:
		return fmt.Sprintf("overwrite %s (%d bytes)", rel, len(c.after))
	}
	added, removed := diffStat(c.before, c.after)
	return fmt.Sprintf("%s %s (+%d −%d lines)", verb, rel, added, removed)
}

// maxShownDiff bounds the diff a person is shown before the question.
const maxShownDiff = 64 << 10

// diff is the unified diff a person sees before approving the write, ""
// when it cannot be computed (unreadable, too large, or binary).
func (c change) diff(rel string) string {
	if !c.readable() || len(c.after) > maxDiffBytes || !isText(c.before) || !isText(c.after) {
		return ""
	}
	from := "a/" + rel
	if !c.exists {
		from = "/dev/null"
	}
	u := udiff.Unified(from, "b/"+rel, c.before, c.after)
	if len(u) > maxShownDiff {
		cut := strings.LastIndexByte(u[:maxShownDiff], '\n') + 1
		u = u[:cut] + fmt.Sprintf("[… %d more bytes of diff not shown …]\n", len(u)-cut)
	}
	return u
}

func isText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// readCapped reads a regular file of at most maxDiffBytes; a larger one
// reads as nil, a missing one as not existing. The open does not block and
// the type is checked on the opened file, so a named pipe swapped in for
// the file cannot hang the host.
func readCapped(path string) ([]byte, bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, true, err
	}
	if !fi.Mode().IsRegular() {
		return nil, true, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDiffBytes+1))
	if err != nil {
		return nil, true, err
	}
	if len(b) > maxDiffBytes {
		return nil, true, nil
	}
	return b, true, nil
}

func diffStat(before, after string) (added, removed int) {
	for _, e := range udiff.Lines(before, after) {
		removed += countLines(before[e.Start:e.End])
		added += countLines(e.New)
	}
	return added, removed
}

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// PendingDiff is the summary and unified diff of a stored write_file or
// edit_file action in workspace, against the file as it is now: what a
// person sees when the pipeline that proposed it is elsewhere (`harness
// actions show`, the terminal of a run on the Temporal engine).
func PendingDiff(workspace string, a session.Action) (summary, diff string, err error) {
	var args struct {
		textedit.Args
		Content string `json:"content"`
	}
	if err := json.Unmarshal(a.Arguments, &args); err != nil {
		return "", "", fmt.Errorf("%s: arguments: %v", a.Tool, err)
	}
	rel, err := workspacePath(workspace, args.Path)
	if err != nil {
		return "", "", fmt.Errorf("%q is %v %s", args.Path, err, workspace)
	}
	ch := readChange(workspace, rel)
	ch.after = args.Content
	if a.Tool == config.EditFileTool {
		edits, err := args.List()
		if err != nil {
			return "", "", fmt.Errorf("edit_file: %v", err)
		}
		if !ch.readable() || !ch.exists {
			return ch.summary(a.Tool, rel), "", nil
		}
		res, err := textedit.Apply(ch.before, edits)
		if err != nil {
			return "", "", fmt.Errorf("edit_file: %q: %v", args.Path, err)
		}
		ch.after = res.Text
	}
	return ch.summary(a.Tool, rel), ch.diff(rel), nil
}

// Question is the question about a stored pending action, for a person
// asked away from the pipeline that proposed it: a terminal action's whole
// command and every simple command it runs, a write's or edit's diff
// against the file now in workspace (Reason and Scope stay empty: the
// pipeline's rules are not here).
func Question(workspace string, a session.Action) Action {
	q := Action{Action: a}
	switch a.Kind {
	case session.ActionKindTerminal:
		var args struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(a.Arguments, &args) == nil {
			q.Command = args.Command
			for _, c := range shellpolicy.Classify(args.Command, shellpolicy.Policy{}).Commands {
				q.Commands = append(q.Commands, c.Text)
			}
		}
	case session.ActionKindWriteFile:
		if _, diff, err := PendingDiff(workspace, a); err == nil {
			q.Diff = diff
		}
	}
	return q
}
