package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// CopyTree copies the directory src to dst, leaving out directories whose
// name is in skip (for example a previous run's .harness store).
func CopyTree(tb testing.TB, src, dst string, skip ...string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if path != src && slices.Contains(skip, d.Name()) {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// CopyExecutable copies the program src to dst (mode 0755), creating dst's
// directory.
func CopyExecutable(tb testing.TB, src, dst string) {
	tb.Helper()
	data, err := os.ReadFile(src)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(dst), 0o755)
	}
	if err == nil {
		err = os.WriteFile(dst, data, 0o755)
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// WriteFile writes body to path (mode 0644), creating its folder.
func WriteFile(tb testing.TB, path, body string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// GoSource returns the first n bytes of the Go files of dir, in name order:
// text that compresses as a real tool result of source code does, for
// benchmarks whose payload should not be one repeated line.
func GoSource(tb testing.TB, dir string, n int) []byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		tb.Fatal(err)
	}
	var src []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		src = append(src, data...)
	}
	if len(src) < n {
		tb.Fatalf("the Go source of %s is %d bytes, want at least %d", dir, len(src), n)
	}
	return src[:n]
}
