package writefile

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The diffs must be the ones GNU diff -u writes, and patch must apply
// them; both tools are the reference, where installed.
func TestDiffMatchesGNU(t *testing.T) {
	t.Parallel()
	diffTool, err1 := exec.LookPath("diff")
	patchTool, err2 := exec.LookPath("patch")
	if err1 != nil || err2 != nil {
		t.Skip("GNU diff and patch are not installed")
	}
	tests := map[string][2]string{
		"change one line":    {lines(1, 20, nil), lines(1, 20, map[int]string{10: "line ten\n"})},
		"two hunks":          {lines(1, 30, nil), lines(1, 30, map[int]string{2: "", 28: "line 28\nextra\n"})},
		"nearby changes":     {lines(1, 20, nil), lines(1, 20, map[int]string{5: "five\n", 11: "eleven\n"})},
		"replace a block":    {lines(1, 40, nil), lines(1, 40, map[int]string{20: "", 21: "", 22: "new\n"})},
		"append":             {lines(1, 5, nil), lines(1, 7, nil)},
		"prepend":            {lines(1, 5, nil), "zero\n" + lines(1, 5, nil)},
		"no newline at end":  {"a\nb\nc", "a\nb\nd"},
		"add newline at end": {"a\nb", "a\nb\n"},
		"empty it":           {"a\nb\n", ""},
		"fill an empty file": {"", "a\n"},
		"crlf":               {"one\r\ntwo\r\n", "one\r\n2\r\n"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			before, after, patchFile := filepath.Join(dir, "before"), filepath.Join(dir, "after"), filepath.Join(dir, "p.diff")
			for p, content := range map[string]string{before: tt[0], after: tt[1]} {
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, _ := exec.Command(diffTool, "-u", "--label", "a/f", "--label", "b/f", before, after).Output() // exits 1: files differ
			got := unifiedDiff("f", tt[0], tt[1], true).unified
			if got != string(want) {
				t.Fatalf("GNU diff:\n%s\nours:\n%s", want, got)
			}
			if err := os.WriteFile(patchFile, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(patchTool, "-s", before, patchFile).CombinedOutput(); err != nil {
				t.Fatalf("patch: %v\n%s", err, out)
			}
			if b, err := os.ReadFile(before); err != nil || string(b) != tt[1] {
				t.Fatalf("patched file holds %q (%v), want %q", b, err, tt[1])
			}
		})
	}
}
