// Command harness-tool-jsonquery is an example third-party tool plugin for
// harness: it picks a value out of a JSON document by a dotted path.
//
// Build it, declare it in HCL and lock its checksum:
//
//	go build -o bin/harness-tool-jsonquery ./examples/plugins/jsonquery
//	harness plugins lock agent.hcl
//
// See docs/plugins.md for a walk through this file.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

// maxOutput is set from the plugin's HCL config block.
var maxOutput = 4096

func main() {
	sdk.ServeTool(&sdk.ToolSet{
		Name:    "jsonquery",
		Version: "1.0.0",
		ConfigSchema: schema.Object(
			schema.Integer("max_output_bytes", "Cap on the size of a returned value.").Min(16),
		).JSON(),
		OnConfigure: func(_ context.Context, cfg sdk.PluginConfig) error {
			var c struct {
				MaxOutputBytes int `json:"max_output_bytes"`
			}
			if err := json.Unmarshal(cfg.Config, &c); err != nil {
				return err
			}
			if c.MaxOutputBytes > 0 {
				maxOutput = c.MaxOutputBytes
			}
			return nil
		},
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{
				Name:        "json_query",
				Description: "Select a value from a JSON document by a dotted path such as `items.0.name`. An empty path returns the whole document, pretty-printed.",
				InputSchema: schema.Object(
					schema.String("document", "The JSON document.").Required(),
					schema.String("path", "Dotted path: object keys and array indexes, e.g. `items.0.name`."),
				).JSON(),
				Capabilities: sdk.Capabilities{Reads: true},
			},
			Run: query,
		}},
	})
}

func query(_ context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
	var args struct {
		Document string `json:"document"`
		Path     string `json:"path"`
	}
	if err := sdk.DecodeArgs(call, &args); err != nil {
		return sdk.Result{}, err
	}
	var doc any
	if err := json.Unmarshal([]byte(args.Document), &doc); err != nil {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "document is not valid JSON: %v", err)
	}
	value, err := lookup(doc, args.Path)
	if err != nil {
		return sdk.Result{}, err
	}
	out, _ := json.MarshalIndent(value, "", "  ")
	text := string(out)
	if len(text) > maxOutput {
		text = text[:maxOutput] + fmt.Sprintf("\n[… %d more bytes; query a narrower path]", len(out)-maxOutput)
	}
	return sdk.Result{Content: text, Presentation: sdk.TextView{Text: text}}, nil
}

func lookup(doc any, path string) (any, error) {
	cur := doc
	if path == "" {
		return cur, nil
	}
	for i, key := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[key]
			if !ok {
				return nil, sdk.Errorf(sdk.KindInvalidArgs, "path %q: no key %q at step %d", path, key, i+1)
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= len(v) {
				return nil, sdk.Errorf(sdk.KindInvalidArgs, "path %q: %q is not an index of an array of %d at step %d", path, key, len(v), i+1)
			}
			cur = v[n]
		default:
			return nil, sdk.Errorf(sdk.KindInvalidArgs, "path %q: step %d (%q) goes into a %T", path, i+1, key, v)
		}
	}
	return cur, nil
}
