package pluginhost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// pinThrough hands its writer exactly the bytes of the pinned copy, which
// are the file's, and on Linux the copy is sealed: it cannot be written.
func TestPinThroughHashesWhatItPins(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "plugin")
	data := bytes.Repeat([]byte("plugin bytes\x00\xff"), 300000) // 4.2 MB: more than one MiB buffer
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	f, err := pinThrough(path, h)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := sha256.Sum256(data)
	if got := hex.EncodeToString(h.Sum(nil)); got != hex.EncodeToString(want[:]) {
		t.Errorf("hashed %s, want %x", got, want)
	}
	pinned, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pinned, data) {
		t.Errorf("pinned %d bytes that differ from the file's %d", len(pinned), len(data))
	}
	if probe, _, ok := sealedCopy("probe"); ok { // memfd: the copy is sealed
		probe.Close()
		if _, err := f.WriteAt([]byte("x"), 0); err == nil {
			t.Error("the pinned copy took a write")
		}
	}
}

// BenchmarkPinVerified hashes a 20 MiB plugin binary and pins it, as a
// host does on a third-party plugin's first start.
func BenchmarkPinVerified(b *testing.B) {
	path := filepath.Join(b.TempDir(), "plugin")
	data := make([]byte, 20<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		b.Fatal(err)
	}
	sum, err := FileSHA256(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := pinVerified("p", path, sum)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
