package textedit

import (
	"errors"
	"fmt"
	"strings"
)

// Edit replaces Old by New: its one occurrence, or all of them with
// ReplaceAll.
type Edit struct {
	Old        string `json:"old_string"`
	New        string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// Result is what a list of edits made of a text.
type Result struct {
	Text         string
	Replacements int // over all edits
}

// Apply applies edits to text in order, all or nothing. An error is an
// *Error saying which edit failed and why.
func Apply(text string, edits []Edit) (Result, error) {
	if len(edits) == 0 {
		return Result{}, &Error{Index: -1, Problem: NoEdits}
	}
	crlf := allCRLF(text)
	res := Result{Text: text}
	for i, e := range edits {
		if crlf && !strings.Contains(e.Old, "\r") && !strings.Contains(e.New, "\r") {
			e.Old = toCRLF(e.Old)
			e.New = toCRLF(e.New)
		}
		out, n, err := apply(res.Text, e)
		if err != nil {
			err.Index, err.Count = i, len(edits)
			return Result{}, err
		}
		res.Text = out
		res.Replacements += n
	}
	return res, nil
}

func apply(text string, e Edit) (string, int, *Error) {
	switch {
	case e.Old == "":
		return "", 0, &Error{Problem: EmptyOld}
	case e.Old == e.New:
		return "", 0, &Error{Problem: Unchanged}
	}
	n := strings.Count(text, e.Old)
	if n == 1 && overlaps(text, e.Old) {
		n = 2 // "aa" in "aaa": two places it could mean
	}
	switch {
	case n == 0:
		return "", 0, &Error{Problem: NotFound, Candidates: nearest(text, e.Old)}
	case n > 1 && !e.ReplaceAll:
		return "", 0, &Error{Problem: Ambiguous, Lines: occurrenceLines(text, e.Old, maxListed)}
	}
	return strings.ReplaceAll(text, e.Old, e.New), n, nil
}

// overlaps reports whether old occurs at a second place that overlaps its
// first occurrence, which strings.Count does not count.
func overlaps(text, old string) bool {
	i := strings.Index(text, old)
	return i >= 0 && strings.Contains(text[i+1:], old)
}

// allCRLF reports whether text has line endings and every one is CRLF.
func allCRLF(text string) bool {
	lf := strings.Count(text, "\n")
	return lf > 0 && strings.Count(text, "\r\n") == lf
}

func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// occurrenceLines returns the line numbers (1-based) where the first max
// occurrences of old start.
func occurrenceLines(text, old string, max int) []int {
	var lines []int
	line, from := 1, 0
	for len(lines) < max {
		i := strings.Index(text[from:], old)
		if i < 0 {
			break
		}
		line += strings.Count(text[from:from+i], "\n")
		lines = append(lines, line)
		from += i + 1 // overlapping occurrences count too
	}
	return lines
}

// Problems an edit can have.
const (
	NoEdits   = "no edits"
	EmptyOld  = "old_string is empty"
	Unchanged = "old_string and new_string are the same"
	NotFound  = "old_string was not found"
	Ambiguous = "old_string occurs more than once"
)

// maxListed bounds the occurrences and candidates an error lists.
const maxListed = 10

// Error is a refused edit.
type Error struct {
	Index, Count int // which edit of how many (Index -1: the call as a whole)
	Problem      string
	Lines        []int       // Ambiguous: where (the first maxListed)
	Candidates   []Candidate // NotFound: the nearest lines, best first
}

// Candidate is a place in the text that resembles an old string that was
// not found.
type Candidate struct {
	Line int    // 1-based
	Text string // the line, cut to maxCandidateBytes
	Why  string // "differs in whitespace only" or "similar"
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Count > 1 {
		fmt.Fprintf(&b, "edit %d of %d: ", e.Index+1, e.Count)
	}
	b.WriteString(e.Problem)
	switch e.Problem {
	case NoEdits:
		b.WriteString(": give old_string and new_string, or a list of edits")
	case EmptyOld:
		b.WriteString(": give the exact text to replace (create files with write_file)")
	case Ambiguous:
		fmt.Fprintf(&b, " (starting on lines %s): include more of the surrounding lines in old_string so that it matches once, or set replace_all to replace every one", joinInts(e.Lines))
	case NotFound:
		if len(e.Candidates) == 0 {
			b.WriteString(" and nothing in the file resembles it: read the file again and copy the text exactly, without the line numbers")
			break
		}
		b.WriteString(": it must match the file exactly, whitespace and line breaks included, without read_file's line numbers. The nearest candidates:")
		for _, c := range e.Candidates {
			fmt.Fprintf(&b, "\n  line %d (%s): %s", c.Line, c.Why, c.Text)
		}
	}
	if e.Count > 1 {
		b.WriteString("\nNo edit was applied: the edits apply all or none.")
	}
	return b.String()
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// Args are edit_file's arguments as the model sends them: one edit
// (old_string, new_string, replace_all) or a list (edits).
type Args struct {
	Path       string  `json:"path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
	Edits      []Edit  `json:"edits"`
	// ApprovedPath is set by the host after approval: the path it approved.
	ApprovedPath string `json:"approved_path"`
}

// List returns the edits the arguments ask for, or an error saying what is
// wrong with them.
func (a Args) List() ([]Edit, error) {
	single := a.OldString != nil || a.NewString != nil
	switch {
	case single && len(a.Edits) > 0:
		return nil, errors.New("give either old_string and new_string or edits, not both")
	case single && (a.OldString == nil || a.NewString == nil):
		return nil, errors.New(`old_string and new_string go together: give both (new_string "" deletes)`)
	case single:
		return []Edit{{Old: *a.OldString, New: *a.NewString, ReplaceAll: a.ReplaceAll}}, nil
	case len(a.Edits) == 0:
		return nil, errors.New("nothing to do: give old_string and new_string, or edits")
	}
	return a.Edits, nil
}
