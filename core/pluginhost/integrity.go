package pluginhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// FileSHA256 returns the hex sha256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// IntegrityError says why a third-party plugin was refused before start.
type IntegrityError struct {
	Plugin, Path     string
	Expected, Actual string // Expected is "" when no hash was given anywhere
}

func (e *IntegrityError) Error() string {
	if e.Expected == "" {
		return fmt.Sprintf("plugin %q (%s) has no sha256: add sha256 to its block or run `harness plugins lock CONFIG` to record it in .harness.lock.hcl", e.Plugin, e.Path)
	}
	return fmt.Sprintf("plugin %q: %s does not match its checksum: expected sha256 %s, file has %s; if you changed the plugin on purpose, run `harness plugins lock CONFIG` again", e.Plugin, e.Path, e.Expected, e.Actual)
}

// pinVerified opens the plugin at path once, hashes what it reads through
// that descriptor, and returns the file to run: a sealed in-memory copy of
// exactly the bytes that matched (where the kernel has memfd), else the
// opened file itself. Nothing is opened by path again, so a file replaced or
// rewritten after the check is not what runs.
func pinVerified(name, path, expected string) (*os.File, error) {
	if expected == "" {
		return nil, &IntegrityError{Plugin: name, Path: path}
	}
	expected = strings.ToLower(strings.TrimPrefix(expected, "sha256:"))
	h := sha256.New()
	f, err := pinThrough(path, h)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", name, err)
	}
	if actual := hex.EncodeToString(h.Sum(nil)); actual != expected {
		f.Close()
		return nil, &IntegrityError{Plugin: name, Path: path, Expected: expected, Actual: actual}
	}
	return f, nil
}

// pin returns the file at path as it is now: a sealed in-memory copy where
// the kernel has memfd, else the opened file.
func pin(path string) (*os.File, error) {
	return pinThrough(path, io.Discard)
}

// pinThrough opens path once and pins it (see pin), writing every byte it
// reads to w as well.
func pinThrough(path string, w io.Writer) (*os.File, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	copied, seal, ok := sealedCopy(filepath.Base(path))
	if !ok {
		if _, err := io.Copy(w, src); err != nil {
			src.Close()
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return src, nil
	}
	defer src.Close()
	if _, err := io.Copy(io.MultiWriter(copied, w), src); err != nil {
		copied.Close()
		return nil, fmt.Errorf("copy %s: %w", path, err)
	}
	if err := seal(); err != nil {
		copied.Close()
		return nil, fmt.Errorf("seal the copy of %s: %w", path, err)
	}
	return copied, nil
}
