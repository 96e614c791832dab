package writefile

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// diff is what a write changed, as people see it.
type diff struct {
	unified        string
	added, removed int // lines
}

// unifiedDiff compares the file at rel before and after a write, with
// three lines of context, labelled a/rel and b/rel like git; a new file
// (existed false) is compared with /dev/null. A file that was not text
// before gets git's one-line "Binary files … differ" instead of hunks.
func unifiedDiff(rel, before, after string, existed bool) diff {
	from, to := "a/"+rel, "b/"+rel
	if !existed {
		from = "/dev/null"
	}
	if !isText(before) {
		return diff{
			unified: fmt.Sprintf("Binary files %s and %s differ\n", from, to),
			added:   countLines(after),
			removed: countLines(before),
		}
	}
	edits := udiff.Lines(before, after)
	u, err := udiff.ToUnifiedDiff(from, to, before, edits, udiff.DefaultContextLines)
	if err != nil {
		// udiff's own edits always apply to the text they came from.
		panic("write_file: inconsistent diff: " + err.Error())
	}
	d := diff{unified: u.String()}
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				d.added++
			case udiff.Delete:
				d.removed++
			}
		}
	}
	return d
}

// isText reports whether s can be shown as lines of a diff.
func isText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// countLines counts lines the way editors number them: a last line
// without a newline counts.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
