package config

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

const errorMarker = "# ERROR: "

// marker is an expected error: a line of a file and a substring of the summary.
type marker struct {
	file    string
	line    int
	summary string
}

func (m marker) String() string { return fmt.Sprintf("%s:%d: %q", m.file, m.line, m.summary) }

// readMarkers returns the "# ERROR: <summary>" markers of a file, one or more per line.
func readMarkers(t *testing.T, path string) []marker {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []marker
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		parts := strings.Split(sc.Text(), errorMarker)
		for _, p := range parts[1:] {
			out = append(out, marker{file: path, line: line, summary: strings.TrimSpace(p)})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLoadInvalid loads every fixture of testdata/invalid (files, and directories as one
// configuration) and checks that the error diagnostics are exactly the ones its
// "# ERROR: <summary>" markers announce: on those lines, with those summaries, no others.
func TestLoadInvalid(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir("testdata/invalid")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		path := filepath.Join("testdata/invalid", e.Name())
		var files []string
		switch {
		case e.IsDir():
			files, _ = filepath.Glob(filepath.Join(path, "*.hcl"))
		case strings.HasSuffix(e.Name(), ".hcl"):
			files = []string{path}
		default:
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			var want []marker
			for _, f := range files {
				want = append(want, readMarkers(t, f)...)
			}
			if len(want) == 0 {
				t.Fatal("fixture has no # ERROR: markers")
			}
			cfg, diags := loadTest(path)
			checkMarkers(t, want, diags)
			if t.Failed() {
				var buf bytes.Buffer
				_ = WriteDiagnostics(&buf, cfg.Files, diags, 100, false)
				t.Logf("diagnostics:\n%s", buf.String())
			}
		})
	}
}

func checkMarkers(t *testing.T, want []marker, diags hcl.Diagnostics) {
	t.Helper()
	matched := make([]bool, len(want))
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject == nil {
			t.Errorf("error without a source range: %s: %s", d.Summary, d.Detail)
			continue
		}
		found := false
		for i, m := range want {
			if m.file == d.Subject.Filename && m.line == d.Subject.Start.Line && strings.Contains(d.Summary, m.summary) {
				matched[i], found = true, true
			}
		}
		if !found {
			t.Errorf("unexpected error at %s:%d: %s: %s", d.Subject.Filename, d.Subject.Start.Line, d.Summary, d.Detail)
		}
	}
	var missing []string
	for i, m := range want {
		if !matched[i] {
			missing = append(missing, m.String())
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no error for marker %s", m)
	}
}

// TestLoadInvalidAllFilesReported checks that a directory config reports the errors of
// every file in one Load, in file then line order.
func TestLoadInvalidAllFilesReported(t *testing.T) {
	t.Parallel()
	_, diags := loadTest("testdata/invalid/twofiles")
	seen := map[string]bool{}
	var prev *hcl.Range
	for _, d := range diags.Errs() {
		diag := d.(*hcl.Diagnostic)
		seen[filepath.Base(diag.Subject.Filename)] = true
		if prev != nil && (prev.Filename > diag.Subject.Filename ||
			prev.Filename == diag.Subject.Filename && prev.Start.Byte > diag.Subject.Start.Byte) {
			t.Errorf("diagnostics out of order: %s before %s", prev, diag.Subject)
		}
		prev = diag.Subject
	}
	if !seen["a.hcl"] || !seen["b.hcl"] {
		t.Errorf("errors reported for %v, want both a.hcl and b.hcl", seen)
	}
}

func TestLoadSuggestions(t *testing.T) {
	t.Parallel()
	_, diags := loadTest("testdata/invalid/references.hcl")
	var details []string
	for _, d := range diags {
		details = append(details, d.Detail)
	}
	all := strings.Join(details, "\n")
	for _, want := range []string{`Did you mean "deepseek"?`, `Did you mean "flash"?`} {
		if !strings.Contains(all, want) {
			t.Errorf("no diagnostic suggests %s; details:\n%s", want, all)
		}
	}
}
