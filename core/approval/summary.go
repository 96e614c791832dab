package approval

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"

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

// writeSummary is a write as people read it: the path and a diff stat.
func writeSummary(workspace, rel, content string) string {
	old, exists, err := readCapped(filepath.Join(workspace, filepath.FromSlash(rel)))
	switch {
	case err != nil:
		return fmt.Sprintf("write %s (%d bytes; current file unreadable: %v)", rel, len(content), err)
	case !exists:
		return fmt.Sprintf("create %s (+%d lines)", rel, countLines(content))
	case old == nil || len(content) > maxDiffBytes:
		return fmt.Sprintf("overwrite %s (%d bytes)", rel, len(content))
	}
	added, removed := diffStat(string(old), content)
	return fmt.Sprintf("write %s (+%d −%d lines)", rel, added, removed)
}

// readCapped reads a file of at most maxDiffBytes; a larger one reads as
// nil, a missing one as not existing.
func readCapped(path string) ([]byte, bool, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
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
