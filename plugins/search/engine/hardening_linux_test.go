package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A folder of the workspace swapped for a symbolic link to the outside
// after it was listed: every open the walk makes below it (the folder
// itself, a file in it, through both the openat2 and the component-by-
// component paths) is refused, so nothing outside is read.
func TestSwappedFolderIsNotFollowed(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("needle outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil { // the swap, done
		t.Fatal(err)
	}
	var scratch []byte
	if _, _, err := openDir(filepath.Join(root, "sub"), &scratch); !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("openDir through the link: %v", err)
	}
	if data, err := readNoSymlinks(filepath.Join(root, "sub", "secret.txt"), nil); err == nil || strings.Contains(string(data), "needle") {
		t.Errorf("readNoSymlinks through the link: %q, %v", data, err)
	}
	if fd, err := openByComponents(filepath.Join(root, "sub", "secret.txt"), syscall.O_RDONLY); err == nil {
		syscall.Close(fd)
		t.Error("openByComponents followed the link")
	}
	res, err := Search(context.Background(), root, Query{Pattern: "needle"})
	if err != nil || res.Total != 0 {
		t.Errorf("a search of the workspace: %+v, %v", res, err)
	}
}

// A FIFO swapped in for a listed file is refused at the open, never read:
// the test's deadline is the failure signal.
func TestSwappedFIFOIsNotRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "f.txt"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	d, _, err := openDir(root, new([]byte))
	if err != nil {
		t.Fatal(err)
	}
	defer d.release()
	done := make(chan error, 1)
	go func() {
		_, err := d.readFile("f.txt", nil)
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case err := <-done:
		if !errors.Is(err, errNotRegular) {
			t.Errorf("readFile of a FIFO: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("reading a FIFO blocked")
	}
}

// A 2 GiB sparse file is not read into memory: it is skipped and named,
// and the other files are still searched.
func TestHugeFileIsSkipped(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("needle at the start\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		f.Close()
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(root, "small.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", "huge.log"} {
		res, err := Search(context.Background(), root, Query{Pattern: "needle", Path: path})
		if err != nil {
			t.Fatal(err)
		}
		wantTotal := 1
		if path != "" {
			wantTotal = 0
		}
		if res.Total != wantTotal || len(res.Skipped) != 1 || res.Skipped[0] != "huge.log" {
			t.Errorf("path %q: %+v", path, res)
		}
	}
}
