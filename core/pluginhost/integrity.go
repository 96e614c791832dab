package pluginhost

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// pins to w as well: each MiB read is written to the sealed copy and then
// handed to w, which hashes it while the next MiB is copied (hashing is
// the slower half, so a pin takes about the hash's time). The bytes w gets
// are the very bytes the copy holds.
func pinThrough(path string, w io.Writer) (*os.File, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	copied, seal, ok := sealedCopy(filepath.Base(path))
	if !ok {
		if err := readAll(w, src); err != nil {
			src.Close()
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return src, nil
	}
	defer src.Close()
	if w == io.Discard {
		err = readAll(copied, src) // nothing to hand over
	} else {
		err = copyHanding(copied, src, w)
	}
	if err != nil {
		copied.Close()
		return nil, fmt.Errorf("copy %s: %w", path, err)
	}
	if err := seal(); err != nil {
		copied.Close()
		return nil, fmt.Errorf("seal the copy of %s: %w", path, err)
	}
	return copied, nil
}

// copyHanding copies src to dst a MiB at a time and hands each MiB, once
// written, to w in another goroutine, so that w's work on one overlaps the
// copy of the next. w must not fail (a hash does not).
func copyHanding(dst io.Writer, src io.Reader, w io.Writer) error {
	free := make(chan []byte, 2)
	free <- make([]byte, 1<<20)
	free <- make([]byte, 1<<20)
	full := make(chan []byte, 2)
	handed := make(chan struct{})
	go func() {
		defer close(handed)
		for b := range full {
			_, _ = w.Write(b)
			free <- b[:cap(b)]
		}
	}()
	defer func() { close(full); <-handed }()
	for {
		b := <-free
		n, err := io.ReadFull(src, b)
		if n > 0 {
			if _, werr := dst.Write(b[:n]); werr != nil {
				return werr
			}
			full <- b[:n]
		}
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil
		case err != nil:
			return err
		}
	}
}

// readAll writes what is left of f to w, a MiB at a time: a plugin binary
// is tens of MiB, and io.Copy's 32 KiB would make a thousand reads of it.
// f is wrapped so that io.CopyBuffer uses the buffer rather than
// os.File.WriteTo.
func readAll(w io.Writer, f *os.File) error {
	_, err := io.CopyBuffer(w, struct{ io.Reader }{f}, make([]byte, 1<<20))
	return err
}
