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

func TestListFilesThroughPlugin(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	outside := t.TempDir()
	write := func(name string) {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a.go", "b.txt", "src/c.go", "src/sub/d_test.go", "build/out.go", ".hidden/e.go", ".env"} {
		write(f)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	client := sdktest.ConnectTool(t, search.New())
	ctx := context.Background()
	if err := client.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	list := func(args string) sdk.Result {
		t.Helper()
		res, err := client.Execute(ctx, sdk.Call{ID: "1", Tool: "list_files", Arguments: json.RawMessage(args)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	tests := []struct {
		args, want string
		kind       sdk.ErrorKind
	}{
		{`{}`, "a.go\nb.txt\nsrc/\nsrc/c.go\nsrc/sub/\nsrc/sub/d_test.go\n6 entries", ""},
		{`{"pattern":"*.go"}`, "a.go\nsrc/c.go\nsrc/sub/d_test.go\n3 entries match \"*.go\"", ""},
		{`{"pattern":"src/**/*_test.go"}`, "src/sub/d_test.go\n1 entry matches \"src/**/*_test.go\"", ""},
		{`{"path":"src"}`, "src/c.go\nsrc/sub/\nsrc/sub/d_test.go\n3 entries", ""},
		{`{"pattern":"*.rs"}`, `no entries match "*.rs"`, ""},
		{`{"path":"out"}`, "", sdk.KindPathEscape},
		{`{"path":"../.."}`, "", sdk.KindPathEscape},
		{`{"path":"a.go"}`, "", sdk.KindInvalidArgs},
		{`{"pattern":"[x"}`, "", sdk.KindInvalidArgs},
	}
	for _, tt := range tests {
		res := list(tt.args)
		if tt.kind != "" {
			if res.Err == nil || res.Err.Kind != tt.kind || !strings.HasPrefix(res.Err.Message, "list_files: ") {
				t.Errorf("%s: got %+v, want kind %s", tt.args, res.Err, tt.kind)
			}
			continue
		}
		if res.Err != nil || res.Content != tt.want || res.Presentation != (sdk.TextView{Text: tt.want}) {
			t.Errorf("%s: got %q (%v), want %q", tt.args, res.Content, res.Err, tt.want)
		}
		if strings.Contains(res.Content, "secret") {
			t.Errorf("%s: the listing followed the symbolic link out", tt.args)
		}
	}
}

// A listing over the cap shows the first entries and says how many more
// matched.
func TestListFilesCap(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for i := range 1203 {
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%04d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	client := sdktest.ConnectTool(t, search.New())
	ctx := context.Background()
	if err := client.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	res, err := client.Execute(ctx, sdk.Call{ID: "1", Tool: "list_files", Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	lines := strings.Split(res.Content, "\n")
	if len(lines) != 1001 || lines[0] != "f0000.txt" || lines[999] != "f0999.txt" ||
		lines[1000] != "1203 entries; showing the first 1000, 203 not shown: narrow with pattern or path." {
		t.Fatalf("%d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}
