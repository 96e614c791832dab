package pluginhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
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

// verify checks the file at path against the expected hex sha256 and
// returns the decoded checksum for go-plugin's SecureConfig.
func verify(name, path, expected string) ([]byte, error) {
	if expected == "" {
		return nil, &IntegrityError{Plugin: name, Path: path}
	}
	actual, err := FileSHA256(path)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", name, err)
	}
	expected = strings.ToLower(strings.TrimPrefix(expected, "sha256:"))
	if actual != expected {
		return nil, &IntegrityError{Plugin: name, Path: path, Expected: expected, Actual: actual}
	}
	return hex.DecodeString(actual)
}
