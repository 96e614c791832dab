package engine

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// record builds a linux_dirent64 record of the given length.
func record(ino uint64, typ byte, name string, reclen int) []byte {
	rec := make([]byte, reclen)
	binary.NativeEndian.PutUint64(rec[0:8], ino)
	binary.NativeEndian.PutUint16(rec[16:18], uint16(reclen))
	rec[18] = typ
	copy(rec[19:], name)
	return rec
}

func TestParseDirent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rec  []byte
		want dirEntry
		size int
		ok   bool
	}{
		{"file", record(7, syscall.DT_REG, "a.go", 24), dirEntry{"a.go", kindFile}, 24, true},
		{"directory", record(7, syscall.DT_DIR, "sub", 24), dirEntry{"sub", kindDir}, 24, true},
		{"link", record(7, syscall.DT_LNK, "l", 24), dirEntry{"l", kindOther}, 24, true},
		{"unknown type", record(7, syscall.DT_UNKNOWN, "u", 24), dirEntry{"u", kindUnknown}, 24, true},
		{"deleted", record(0, syscall.DT_REG, "gone", 24), dirEntry{}, 24, true},
		{"short header", make([]byte, 10), dirEntry{}, 0, false},
		{"length past the buffer", record(7, syscall.DT_REG, "x", 24)[:20], dirEntry{}, 0, false},
		{"empty name, skipped by list", record(7, syscall.DT_REG, "", 19), dirEntry{"", kindFile}, 19, true},
		{"length below the header", func() []byte {
			rec := record(7, syscall.DT_REG, "x", 24)
			binary.NativeEndian.PutUint16(rec[16:18], 10)
			return rec
		}(), dirEntry{}, 0, false},
	}
	for _, tc := range tests {
		got, size, ok := parseDirent(tc.rec)
		if got != tc.want || ok != tc.ok || ok && size != tc.size {
			t.Errorf("%s: parseDirent = %+v, %d, %v; want %+v, %d, %v", tc.name, got, size, ok, tc.want, tc.size, tc.ok)
		}
	}
}

// statKind stands in for getdents on file systems that report DT_UNKNOWN.
func TestStatKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	var scratch []byte
	h, _, err := openDir(dir, &scratch)
	if err != nil {
		t.Fatal(err)
	}
	defer h.release()
	for name, want := range map[string]entryKind{"f": kindFile, "d": kindDir, "l": kindOther, "missing": kindOther} {
		if got := h.statKind(name); got != want {
			t.Errorf("statKind(%q) = %d, want %d", name, got, want)
		}
	}
}
