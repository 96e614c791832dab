// Command testplugin is a tool plugin for the plugin host's tests: it can
// crash, hang, report its environment, refuse a configuration ({"refuse":
// true}) and misbehave at start. Started as `plugin serve --shared` it is a
// shared process serving each plugin a call names. With TESTPLUGIN_UNORDERED set it serves
// as a plugin of an SDK from before pipelined Configure (see unordered.go).
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/harness-agent/harness/sdk"
)

func main() {
	if os.Getenv("TESTPLUGIN_STDOUT") != "" {
		fmt.Println("hello from a plugin that prints before the handshake")
	}
	fmt.Fprintf(os.Stderr, "testplugin: serving pid %d\n", os.Getpid())
	if os.Getenv("TESTPLUGIN_UNORDERED") != "" {
		serveUnordered()
		return
	}
	if len(os.Args) > 3 && os.Args[3] == "--shared" {
		// `plugin serve --shared`: every plugin a call names is a fresh
		// tool set of its own, with its own configuration.
		sdk.ServeShared(sdk.SharedSet{Tool: func(string) sdk.ToolPlugin { return toolSet() }})
		return
	}
	sdk.ServeTool(toolSet())
}

// toolSet is one plugin: its tools and its configuration.
func toolSet() *sdk.ToolSet {
	var workspace string
	var configures atomic.Int64 // Configure calls handled
	tool := func(name string, run func(context.Context, sdk.Call) (sdk.Result, error)) sdk.Tool {
		return sdk.Tool{
			Spec: sdk.ToolSpec{Name: name, InputSchema: []byte(`{"type":"object"}`)},
			Run: func(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
				return run(ctx, call)
			},
		}
	}
	return &sdk.ToolSet{
		Name:    "testplugin",
		Version: "0.0.1",
		OnConfigure: func(_ context.Context, cfg sdk.PluginConfig) error {
			configures.Add(1)
			if refused(cfg.Config) {
				return errRefused
			}
			workspace = cfg.Workspace
			return nil
		},
		Tools: []sdk.Tool{
			tool("noop", func(context.Context, sdk.Call) (sdk.Result, error) {
				return sdk.Result{Content: "ok"}, nil
			}),
			tool("pid", func(context.Context, sdk.Call) (sdk.Result, error) {
				return sdk.Result{Content: fmt.Sprint(os.Getpid())}, nil
			}),
			tool("workspace", func(context.Context, sdk.Call) (sdk.Result, error) {
				return sdk.Result{Content: workspace}, nil
			}),
			tool("configures", func(context.Context, sdk.Call) (sdk.Result, error) {
				return sdk.Result{Content: fmt.Sprint(configures.Load())}, nil
			}),
			tool("env", func(context.Context, sdk.Call) (sdk.Result, error) {
				env := os.Environ()
				sort.Strings(env)
				return sdk.Result{Content: strings.Join(env, "\n")}, nil
			}),
			{
				// sleep says "sleeping" as progress once the call has
				// arrived (what a test waits for), then hangs until canceled.
				Spec: sdk.ToolSpec{Name: "sleep", InputSchema: []byte(`{"type":"object"}`)},
				Run: func(ctx context.Context, _ sdk.Call, progress sdk.Progress) (sdk.Result, error) {
					progress("stdout", "sleeping\n")
					select {
					case <-ctx.Done():
						return sdk.Result{}, ctx.Err()
					case <-time.After(time.Hour):
						return sdk.Result{Content: "slept"}, nil
					}
				},
			},
			tool("crash", func(ctx context.Context, _ sdk.Call) (sdk.Result, error) {
				sdk.Logger().Error("testplugin: about to crash")
				go func() { panic("boom from a plugin goroutine") }()
				<-ctx.Done() // the panic ends the process first; never answers
				return sdk.Result{}, ctx.Err()
			}),
			tool("big", func(context.Context, sdk.Call) (sdk.Result, error) {
				return sdk.Result{Content: strings.Repeat("x", 64<<10)}, nil
			}),
		},
	}
}

var errRefused = sdk.Errorf(sdk.KindInvalidArgs, "testplugin refuses this configuration")

func refused(config []byte) bool {
	return bytes.Contains(config, []byte(`"refuse":true`))
}
