package config

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

const (
	sumA = "8c1c58d223e9242a47f53e8ff2c42b8b49739014ac3a32a6c295516763104028"
	sumB = "a5d317481d222c75689113aa5c8fcc1f38c68ecc46a9c426cc0aa5922f55fdc3"
)

func TestLockRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	entries := map[string]LockEntry{
		"zeta":    {Path: filepath.Join(dir, "bin", "zeta"), SHA256: sumA},
		"alpha":   {Path: "bin/alpha", SHA256: strings.ToUpper(sumB)},
		"between": {Path: filepath.Join(dir, "..", "common", "between"), SHA256: sumB},
	}
	if err := WriteLock(dir, entries); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(filepath.Join(dir, LockFileName))
	if err != nil {
		t.Fatal(err)
	}
	want := lockHeader + `plugin "alpha" {
  path   = "bin/alpha"
  sha256 = "` + sumB + `"
}

plugin "between" {
  path   = "../common/between"
  sha256 = "` + sumB + `"
}

plugin "zeta" {
  path   = "bin/zeta"
  sha256 = "` + sumA + `"
}
`
	if string(first) != want {
		t.Errorf("lock file:\n%s\nwant:\n%s", first, want)
	}

	// Same entries, built in another order: same bytes.
	again := map[string]LockEntry{}
	for _, name := range []string{"between", "zeta", "alpha"} {
		again[name] = entries[name]
	}
	if err := WriteLock(dir, again); err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(filepath.Join(dir, LockFileName))
	if err != nil {
		t.Fatal(err)
	}
	if string(second) != string(first) {
		t.Errorf("rewriting the same entries changed the file:\n%s", second)
	}

	got, diags := ReadLock(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	wantSums := map[string]string{"alpha": sumB, "between": sumB, "zeta": sumA}
	if !maps.Equal(got, wantSums) {
		t.Errorf("ReadLock = %v, want %v", got, wantSums)
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(matches) > 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}

func TestReadLockMissing(t *testing.T) {
	t.Parallel()
	got, diags := ReadLock(t.TempDir())
	if len(diags) > 0 || got == nil || len(got) != 0 {
		t.Errorf("ReadLock of a directory without lock = %v, %v; want an empty map", got, diags)
	}
}

func TestReadLockInvalid(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src  string
		want []string
	}{
		"syntax":        {"plugin \"a\" {\n", []string{"Unclosed configuration block"}},
		"bad sha":       {"plugin \"a\" {\n  path = \"x\"\n  sha256 = \"nope\"\n}\n", []string{"Invalid sha256"}},
		"missing sha":   {"plugin \"a\" {\n  path = \"x\"\n}\n", []string{"Missing required argument"}},
		"unknown block": {"provider \"a\" {}\n", []string{"Unsupported block type"}},
		"duplicate": {
			"plugin \"a\" {\n  path = \"x\"\n  sha256 = \"" + sumA + "\"\n}\nplugin \"a\" {\n  path = \"x\"\n  sha256 = \"" + sumA + "\"\n}\n",
			[]string{`Duplicate plugin "a"`},
		},
		"no functions": {"plugin \"a\" {\n  path = \"x\"\n  sha256 = lower(\"" + sumA + "\")\n}\n", []string{"Function calls not allowed"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			testkit.WriteFile(t, filepath.Join(dir, LockFileName), tt.src)
			_, diags := ReadLock(dir)
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("diagnostics %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteLockRefusesBadSum(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := WriteLock(dir, map[string]LockEntry{"a": {Path: "x", SHA256: "short"}})
	if err == nil {
		t.Fatal("WriteLock accepted an invalid sha256")
	}
	if _, statErr := os.Stat(filepath.Join(dir, LockFileName)); statErr == nil {
		t.Error("a lock file was written despite the error")
	}
}

func TestIntegrity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "bin", "good"), "good plugin")
	testkit.WriteFile(t, filepath.Join(dir, "bin", "locked"), "locked plugin")
	testkit.WriteFile(t, filepath.Join(dir, "bin", "changed"), "changed plugin")
	testkit.WriteFile(t, filepath.Join(dir, "bin", "unpinned"), "unpinned hook")
	goodSum, err := FileSHA256(filepath.Join(dir, "bin", "good"))
	if err != nil {
		t.Fatal(err)
	}
	lockedSum, err := FileSHA256(filepath.Join(dir, "bin", "locked"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "agent.hcl"), `
plugin "good" {
  path   = "bin/good"
  sha256 = "`+goodSum+`"
}
plugin "locked" {
  path = "bin/locked"
}
plugin "changed" {
  path   = "bin/changed"
  sha256 = "`+sumA+`"
}
hook "unpinned" {
  path   = "bin/unpinned"
  phases = ["tools/approve"]
}
agent "a" {
  model = "m"
}
`)
	if err := WriteLock(dir, map[string]LockEntry{
		"locked": {Path: filepath.Join(dir, "bin", "locked"), SHA256: lockedSum},
		// The block's sha256 wins over the lock.
		"good": {Path: "bin/good", SHA256: sumB},
	}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := Load(filepath.Join(dir, "agent.hcl")) // model "m" is not declared: irrelevant here

	lock, diags := ReadLock(cfg.Dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for name, want := range map[string]string{"good": goodSum, "locked": lockedSum, "changed": sumA, "unpinned": ""} {
		if got := cfg.ExpectedSHA256(name, lock); got != want {
			t.Errorf("ExpectedSHA256(%q) = %q, want %q", name, got, want)
		}
	}

	diags = CheckIntegrity(cfg)
	got := map[string]string{}
	for _, d := range diags {
		got[d.Summary] = d.Detail
	}
	if len(diags) != 2 {
		t.Errorf("CheckIntegrity: %d diagnostics, want 2: %v", len(diags), diags)
	}
	if d := got["Checksum mismatch"]; !strings.Contains(d, `plugin "changed"`) || !strings.Contains(d, sumA) {
		t.Errorf("Checksum mismatch detail = %q, want the plugin and both hashes", d)
	}
	if d := got["Missing checksum"]; !strings.Contains(d, `hook "unpinned"`) || !strings.Contains(d, "harness plugins lock") {
		t.Errorf("Missing checksum detail = %q, want the hook and the lock command", d)
	}
}
