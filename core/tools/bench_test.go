package tools_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

var noop = sourceFunc(func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
	return sdk.Result{Content: "ok"}, nil
})

// benchCall returns call i; every call has other arguments, so the loop
// guard never refuses one (and its map grows as in a long session).
func benchCall(i int) sdk.Call {
	return sdk.Call{ID: "c", Tool: "read_file", Arguments: []byte(`{"path":"src/main.go","offset":` + itoa(i+1) + `}`)}
}

func itoa(i int) string { return strconv.Itoa(i) }

// BenchmarkNoopThroughAllPhases measures the executor's own cost: an
// in-process no-op source through every phase, no hooks, events dropped.
func BenchmarkNoopThroughAllPhases(b *testing.B) {
	reg := newRegistry(b, tools.Tool{Spec: sdk.ToolSpec{Name: "read_file", InputSchema: readSchema}, Origin: tools.OriginBuiltin, Source: noop})
	ex := newExecutor(b, reg, tools.Options{RepeatLimit: 1 << 30, StopLimit: 1 << 30})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if o := ex.Run(ctx, benchCall(i)); o.Result.Err != nil {
			b.Fatal(o.Result.Err)
		}
	}
}

// BenchmarkNoopThroughPlugin adds a real gRPC round trip to a no-op tool
// plugin (in-process server, sdktest.ConnectTool).
func BenchmarkNoopThroughPlugin(b *testing.B) {
	client := sdktest.ConnectTool(b, &sdk.ToolSet{Name: "noop", Tools: []sdk.Tool{{
		Spec: sdk.ToolSpec{Name: "read_file", InputSchema: readSchema},
		Run:  noop,
	}}})
	reg := newRegistry(b, tools.Tool{Spec: sdk.ToolSpec{Name: "read_file", InputSchema: readSchema}, Origin: tools.OriginPlugin, Owner: "noop", Source: client})
	ex := newExecutor(b, reg, tools.Options{RepeatLimit: 1 << 30, StopLimit: 1 << 30})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if o := ex.Run(ctx, benchCall(i)); o.Result.Err != nil {
			b.Fatal(o.Result.Err)
		}
	}
}
