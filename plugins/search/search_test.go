package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-agent/harness/plugins/search"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

func TestSearchWorkspaceThroughPlugin(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\nfunc NewReader() {}\n")
	write("sub/b.go", "package b\n// NewReader wraps\nfunc NewReader() {}\n")
	write("ignored/c.go", "func NewReader() {}\n")
	write(".gitignore", "ignored/\n")

	client := sdktest.ConnectTool(t, search.New())
	ctx := context.Background()
	if err := client.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	exec := func(args string) sdk.Result {
		t.Helper()
		res, err := client.Execute(ctx, sdk.Call{ID: "1", Tool: "search_workspace", Arguments: json.RawMessage(args)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := exec(`{"query":"func NewReader"}`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := sdk.SearchView{Query: "func NewReader", Total: 2, Hits: []sdk.SearchHit{
		{Path: "a.go", Line: 2, Text: "func NewReader() {}"},
		{Path: "sub/b.go", Line: 3, Text: "func NewReader() {}"},
	}}
	if diff := cmp.Diff(want, res.Presentation); diff != "" {
		t.Errorf("presentation (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(res.Content, "a.go:2:func NewReader() {}\nsub/b.go:3:func NewReader() {}\n2 matching lines in 2 files") {
		t.Errorf("content:\n%s", res.Content)
	}

	if res := exec(`{"query":"NewReader","max_results":1}`); !strings.Contains(res.Content, "3 matching lines in 2 files; showing the first 1") {
		t.Errorf("truncation note missing:\n%s", res.Content)
	}
	for args, kind := range map[string]sdk.ErrorKind{
		`{"query":"(","regex":true}`:       sdk.KindInvalidArgs,
		`{"query":"x","path":"../.."}`:     sdk.KindPathEscape,
		`{"query":""}`:                     sdk.KindInvalidArgs,
		`{"query":"x","context_lines":99}`: sdk.KindInvalidArgs,
	} {
		if res := exec(args); res.Err == nil || res.Err.Kind != kind {
			t.Errorf("%s: got %+v, want kind %s", args, res.Err, kind)
		}
	}
}

// Hits that would overflow one call's output are not shown, and the note
// says exactly how many matching lines were not shown; the person's view
// holds the same hits as the model's content.
func TestOutputBudget(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	var body strings.Builder
	for range 1500 {
		body.WriteString("match " + strings.Repeat("x", 400) + "\n")
	}
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	client := sdktest.ConnectTool(t, search.New())
	ctx := context.Background()
	if err := client.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	res, err := client.Execute(ctx, sdk.Call{ID: "1", Tool: "search_workspace", Arguments: json.RawMessage(`{"query":"match","max_results":2000}`)}, nil)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	view := res.Presentation.(sdk.SearchView)
	lines := strings.Split(res.Content, "\n")
	hits, note := lines[:len(lines)-1], lines[len(lines)-1]
	want := fmt.Sprintf("1500 matching lines in 1 files; showing the first %d, which fill the 64 KiB one call returns; %d not shown.", len(hits), 1500-len(hits))
	if !strings.HasPrefix(note, want) || len(view.Hits) != len(hits) || view.Total != 1500 {
		t.Fatalf("note %q (want prefix %q), %d hits in the view, %d in the content", note, want, len(view.Hits), len(hits))
	}
	if len(res.Content) > 64<<10+512 {
		t.Errorf("content is %d bytes", len(res.Content))
	}
}
