// Command harness-tool-wordcount is a harness tool plugin: its tool wordcount counts
// the words of a text.
//
// Build it where agent.hcl expects it, lock its checksum and try it offline
// (the scripted provider in turns.hcl calls the tool; no key, no network):
//
//	go mod tidy
//	go build -o bin/harness-tool-wordcount .
//	harness plugins lock agent.hcl
//	harness run agent.hcl "Count the words"
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

func main() {
	sdk.ServeTool(newPlugin())
}

// newPlugin is the plugin: its tools and how they run. The test connects
// to the same value in-process.
func newPlugin() *sdk.ToolSet {
	return &sdk.ToolSet{
		Name:    "wordcount",
		Version: "0.1.0",
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{
				Name:        "wordcount",
				Description: "Count the words of a text: runs of characters between spaces.",
				InputSchema: schema.Object(
					schema.String("text", "The text whose words to count.").Required(),
				).JSON(),
				Capabilities: sdk.Capabilities{}, // it reads, writes and runs nothing
			},
			Run: count,
		}},
	}
}

func count(_ context.Context, call sdk.Call, progress sdk.Progress) (sdk.Result, error) {
	var args struct {
		Text string `json:"text"`
	}
	if err := sdk.DecodeArgs(call, &args); err != nil {
		return sdk.Result{}, err
	}
	n := len(strings.Fields(args.Text))
	if progress != nil {
		progress("stdout", fmt.Sprintf("counted %d words\n", n)) // shown to people while the call runs
	}
	return sdk.Result{Content: fmt.Sprintf("%d words", n)}, nil
}
