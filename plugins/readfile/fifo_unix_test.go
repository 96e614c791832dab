//go:build unix

package readfile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

// Opening a named pipe would block the call until a writer comes.
func TestNamedPipeRefused(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	res := call(t, connect(t, ws), obj{"path": "pipe"})
	if res.Err == nil || res.Err.Kind != sdk.KindInvalidArgs || !strings.Contains(res.Err.Message, "not a regular file") {
		t.Fatalf("got %+v", res.Err)
	}
}
