package readfile

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// file64KiB is 64 KiB of 80-byte lines, like source code.
var file64KiB = strings.Repeat(strings.Repeat("x", 79)+"\n", 64<<10/80+1)[:64<<10]

// BenchmarkReadFile64KiB reads a 64 KiB file whole, through the gRPC
// boundary the host uses.
func BenchmarkReadFile64KiB(b *testing.B) {
	ws := b.TempDir()
	writeFiles(b, ws, map[string]string{"f.txt": file64KiB})
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

// BenchmarkBareCall64KiB is the reference for BenchmarkReadFile64KiB: a
// tool that returns the same content from memory, so the difference is
// the cost of read_file itself.
func BenchmarkBareCall64KiB(b *testing.B) {
	ws := b.TempDir()
	writeFiles(b, ws, map[string]string{"f.txt": file64KiB})
	res := call(b, connect(b, ws), obj{"path": "f.txt"})
	echo := &sdk.ToolSet{Name: "bare", Tools: []sdk.Tool{{
		Spec: sdk.ToolSpec{Name: toolName},
		Run: func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
			return res, nil
		},
	}}}
	client := sdktest.ConnectTool(b, echo)
	c := sdk.Call{ID: "b", Tool: toolName, Arguments: json.RawMessage(`{"path":"f.txt"}`)}
	b.SetBytes(64 << 10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.Execute(context.Background(), c, nil); err != nil {
			b.Fatal(err)
		}
	}
}
