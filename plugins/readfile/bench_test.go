package readfile

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

// BenchmarkReadFile64KiB reads a 64 KiB source-like file whole, through
// the gRPC boundary the host uses.
func BenchmarkReadFile64KiB(b *testing.B) {
	line := strings.Repeat("x", 79) + "\n"
	ws := b.TempDir()
	writeFiles(b, ws, map[string]string{"f.txt": strings.Repeat(line, 64<<10/len(line)+1)[:64<<10]})
	client := connect(b, ws)
	c := sdk.Call{ID: "b", Tool: toolName, Arguments: json.RawMessage(`{"path":"f.txt"}`)}
	b.SetBytes(64 << 10)
	b.ReportAllocs()
	for b.Loop() {
		res, err := client.Execute(context.Background(), c, nil)
		if err != nil || res.Err != nil {
			b.Fatal(err, res.Err)
		}
	}
}
