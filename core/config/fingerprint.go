package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// absentFile stands for a file of the fingerprint that does not exist (a
// configuration without a lock file).
const absentFile = "absent"

// Fingerprint identifies what a run was configured by: one line
// "<sha256> <name>" per loaded file, per file it read (Inputs) and for the lock file, sorted by name,
// names relative to Dir. A session records it; a deferred action is run,
// and a session resumed, only under the same fingerprint (or with the
// user's explicit consent), so that a configuration rewritten in between
// cannot widen what was approved.
func (c *Config) Fingerprint() string {
	sums := map[string]string{}
	for name, f := range c.Files {
		sums[c.relName(name)] = sum(f.Bytes)
	}
	for name, data := range c.Inputs {
		sums[c.relName(name)] = sum(data)
	}
	lock := filepath.Join(c.Dir, LockFileName)
	switch b, err := os.ReadFile(lock); {
	case err == nil:
		sums[LockFileName] = sum(b)
	case errors.Is(err, fs.ErrNotExist):
		sums[LockFileName] = absentFile
	default:
		sums[LockFileName] = "unreadable"
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", sums[n], n)
	}
	return b.String()
}

func (c *Config) relName(name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		return name
	}
	if rel, err := filepath.Rel(c.Dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// FingerprintChanges says how the configuration of fingerprint now differs
// from the one of was: "agent.hcl changed", "extra.hcl was added",
// ".harness.lock.hcl was created". Nothing when they are the same.
func FingerprintChanges(was, now string) []string {
	before, after := parseFingerprint(was), parseFingerprint(now)
	names := map[string]bool{}
	for n := range before {
		names[n] = true
	}
	for n := range after {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var out []string
	for _, n := range sorted {
		b, inB := before[n]
		a, inA := after[n]
		switch {
		case b == a:
		case !inB || b == absentFile:
			if a != absentFile {
				out = append(out, n+" was created")
			}
		case !inA || a == absentFile:
			out = append(out, n+" was removed")
		default:
			out = append(out, n+" changed")
		}
	}
	return out
}

func parseFingerprint(fp string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(fp, "\n") {
		if h, name, ok := strings.Cut(line, " "); ok {
			out[name] = h
		}
	}
	return out
}
