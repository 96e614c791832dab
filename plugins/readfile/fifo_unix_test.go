//go:build unix

package readfile

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// Opening a named pipe for reading would block until a writer comes:
// read_file opens without blocking and checks the opened file, so it
// refuses at once. The deadline of the call's context is the failure
// signal, not a timer.
func TestNamedPipeRefused(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, _ := json.Marshal(obj{"path": "pipe"})
	res, err := connect(t, ws).Execute(ctx, sdk.Call{ID: "p", Tool: toolName, Arguments: raw}, nil)
	if err != nil {
		t.Fatalf("%v (a blocked open shows as the deadline)", err)
	}
	if res.Err == nil || res.Err.Kind != sdk.KindInvalidArgs || !strings.Contains(res.Err.Message, "not a regular file (a named pipe)") {
		t.Fatalf("got %+v", res.Err)
	}
}
