package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// LockEntry is one plugin (or hook) of the lock file. WriteLock makes an absolute Path
// relative to the lock file's directory and keeps a relative one as given.
type LockEntry struct {
	Path   string
	SHA256 string
}

const lockHeader = "# This file is maintained by `harness plugins lock`.\n" +
	"# It pins the sha256 of every plugin and hook the configuration declares.\n\n"

var lockSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "plugin", LabelNames: []string{"name"}}},
}

var lockEntrySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "path", Required: true}, {Name: "sha256", Required: true}},
}

// ReadLock reads dir's lock file and returns the checksum of each plugin by name (lower-case
// hex). A missing lock file is an empty lock, not an error.
func ReadLock(dir string) (map[string]string, hcl.Diagnostics) {
	sums := map[string]string{}
	path := filepath.Join(dir, LockFileName)
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sums, nil
	}
	if err != nil {
		return sums, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read lock file",
			Detail:   fmt.Sprintf("%s: %s.", path, unwrapPathError(err)),
		}}
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return sums, diags
	}
	content, d := f.Body.Content(lockSchema)
	diags = append(diags, d...)
	first := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		name := b.Labels[0]
		if prev, dup := first[name]; dup {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Duplicate plugin %q", name),
				Detail:   fmt.Sprintf("The lock file already has plugin %q at %s.", name, prev),
				Subject:  b.LabelRanges[0].Ptr(),
			})
			continue
		}
		first[name] = b.DefRange
		c, d := b.Body.Content(lockEntrySchema)
		diags = append(diags, d...)
		a := &attrs{m: c.Attributes, diags: &diags}
		// The path tells people which file was locked; only the checksum is enforced.
		a.str("path", new(string))
		if sum := decodeSHA256(a); sum != "" {
			sums[name] = sum
		}
	}
	sortDiagnostics(diags)
	return sums, diags
}

// WriteLock writes dir's lock file: one plugin block per entry, sorted by name, paths
// relative to dir with forward slashes, so that the same entries give the same bytes.
func WriteLock(dir string, entries map[string]LockEntry) error {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		e := entries[name]
		if !validSHA256(e.SHA256) {
			return fmt.Errorf("write lock file: plugin %q: sha256 %q is not 64 hexadecimal digits", name, e.SHA256)
		}
		p := e.Path
		if filepath.IsAbs(p) {
			if rel, err := filepath.Rel(absDir, p); err == nil {
				p = rel
			}
		}
		if i > 0 {
			body.AppendNewline()
		}
		b := body.AppendNewBlock("plugin", []string{name}).Body()
		b.SetAttributeValue("path", cty.StringVal(filepath.ToSlash(p)))
		b.SetAttributeValue("sha256", cty.StringVal(strings.ToLower(e.SHA256)))
	}
	src := append([]byte(lockHeader), hclwrite.Format(f.Bytes())...)
	return writeFileAtomic(filepath.Join(absDir, LockFileName), src)
}

// writeFileAtomic replaces path with data, so that a crash never leaves half a lock file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ExpectedSHA256 returns the checksum the plugin or hook named name must have: its block's
// sha256 attribute, else its entry in lock (as ReadLock returns it); "" when neither has one.
func (c *Config) ExpectedSHA256(name string, lock map[string]string) string {
	if p := c.Plugin(name); p != nil && p.SHA256 != "" {
		return p.SHA256
	}
	if h := c.Hook(name); h != nil && h.SHA256 != "" {
		return h.SHA256
	}
	return lock[name]
}

// FileSHA256 returns the lower-case hex sha256 of a file's contents.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// CheckIntegrity checks every plugin and hook file against the checksum of its block or of
// the lock file next to the configuration: a file without a checksum or with another one
// is an error. It reads the files; it starts nothing.
func CheckIntegrity(cfg *Config) hcl.Diagnostics {
	lock, diags := ReadLock(cfg.Dir)
	check := func(kind, name, path string, rng hcl.Range) {
		want := cfg.ExpectedSHA256(name, lock)
		if want == "" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing checksum",
				Detail: fmt.Sprintf("%s %q (%s) has no sha256 attribute and no entry in %s: "+
					"run `harness plugins lock CONFIG` to record the checksum of the file you trust.",
					kind, name, path, LockFileName),
				Subject: rng.Ptr(),
			})
			return
		}
		got, err := FileSHA256(path)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot read plugin file",
				Detail:   fmt.Sprintf("%s %q: %s.", kind, name, err),
				Subject:  rng.Ptr(),
			})
			return
		}
		if got != want {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Checksum mismatch",
				Detail: fmt.Sprintf("%s %q: %s has sha256 %s, but the configuration expects %s. "+
					"If the new file is the one you trust, update sha256 or run `harness plugins lock CONFIG`.",
					kind, name, path, got, want),
				Subject: rng.Ptr(),
			})
		}
	}
	for _, p := range cfg.Plugins {
		check(blockPlugin, p.Name, p.Path, p.DeclRange)
	}
	for _, h := range cfg.Hooks {
		check(blockHook, h.Name, h.Path, h.DeclRange)
	}
	return diags
}
